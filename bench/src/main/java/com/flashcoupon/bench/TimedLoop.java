package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A closed loop for a length of time rather than a count: every one of the runner's connections sends a request as
 * soon as its last one was answered, until the time is up. Request {@code i} (numbered as started) is
 * {@code calls.apply(i)}. Built on loadgen's engine ({@link LoadRunner#send}).
 */
final class TimedLoop {

    private TimedLoop() {}

    static Measured run(LoadRunner runner, String label, Duration length, IntFunction<HttpCall> calls) {
        Recorder recorder = new Recorder();
        AtomicInteger next = new AtomicInteger();
        long start = System.nanoTime();
        long deadline = start + length.toNanos();
        int connections = runner.concurrency();
        Flux.range(0, connections)
                .flatMap(
                        worker -> Mono.defer(() -> {
                                    int i = next.getAndIncrement();
                                    long sent = System.nanoTime();
                                    return runner.send(calls.apply(i))
                                            .doOnNext(answer -> recorder.answered(
                                                    Labels.of(answer.status(), answer.body()),
                                                    System.nanoTime() - sent))
                                            .onErrorResume(error -> {
                                                recorder.failed(error);
                                                return Mono.empty();
                                            })
                                            .then();
                                })
                                .repeat(() -> System.nanoTime() < deadline),
                        connections)
                .blockLast();
        return recorder.result(label, connections, Duration.ofNanos(System.nanoTime() - start));
    }
}
