package com.flashcoupon.loadgen.engine;

import io.netty.channel.ChannelOption;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.function.IntFunction;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * Runs N HTTP requests with at most C in flight and records, per request, an outcome label and the latency.
 *
 * <p>Closed loop: a request starts when one in flight finishes. Reactor Netty's non-blocking client over a pool of C
 * keep-alive HTTP/1.1 connections, so one client thread set drives thousands of requests per second. Latency is
 * measured from the moment a request is started (its connection taken from the pool) until its whole body arrived.
 */
public final class LoadRunner implements AutoCloseable {

    /** The outcome of a request that got no answer: refused, reset, or no response within the response time-out. */
    public static final String CONNECTION_ERROR = "connection error";

    private final int concurrency;
    private final ConnectionProvider pool;
    private final LoopResources loops;
    private final HttpClient client;

    /**
     * @param baseUrl scheme, host and port, e.g. {@code http://127.0.0.1:8080}
     * @param concurrency requests in flight, and connections in the pool
     * @param responseTimeout how long a request may wait for its answer before it counts as a connection error
     */
    public LoadRunner(String baseUrl, int concurrency, Duration responseTimeout) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
        }
        this.concurrency = concurrency;
        this.pool = ConnectionProvider.builder("loadgen")
                .maxConnections(concurrency)
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(responseTimeout)
                .maxIdleTime(Duration.ofSeconds(30))
                .build();
        int threads = Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        this.loops = LoopResources.create("loadgen", threads, true);
        this.client = HttpClient.create(pool)
                .runOn(loops)
                .baseUrl(baseUrl)
                .keepAlive(true)
                .compress(false)
                .responseTimeout(responseTimeout)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5_000);
        // Event loops, native transport and resolver now, rather than inside the first timed request.
        this.client.warmup().block();
    }

    public int concurrency() {
        return concurrency;
    }

    /**
     * Runs {@code total} requests, {@code calls.apply(i)} for i = 0 … total-1, started in that order, at most
     * {@link #concurrency()} at a time, and blocks until every one was answered or failed.
     */
    public LoadResult run(
            int total, IntFunction<HttpCall> calls, ResponseClassifier classifier, ProgressListener progress) {
        LiveStats live = new LiveStats(total);
        progress.started(live);
        try {
            Flux.range(0, total)
                    .flatMap(i -> exchange(i, calls.apply(i), classifier, live), concurrency, 1)
                    .then()
                    .block();
        } finally {
            live.finish();
            progress.finished(live);
        }
        return live.result();
    }

    /** One request, for calls outside a run (creating the coupon, polling its counters). */
    public Mono<Answer> send(HttpCall call) {
        return client.request(call.method())
                .uri(call.path())
                .send((request, outbound) -> {
                    if (call.bearerToken() != null) {
                        request.header(HttpHeaderNames.AUTHORIZATION, "Bearer " + call.bearerToken());
                    }
                    if (call.proof() != null) {
                        request.header("X-Coupon-Proof", call.proof());
                    }
                    if (call.jsonBody() == null) {
                        request.header(HttpHeaderNames.CONTENT_LENGTH, HttpHeaderValues.ZERO);
                        return outbound;
                    }
                    request.header(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
                    return outbound.sendString(Mono.just(call.jsonBody()), StandardCharsets.UTF_8);
                })
                .responseSingle((response, content) -> content.asString(StandardCharsets.UTF_8)
                        .defaultIfEmpty("")
                        .map(body -> new Answer(
                                response.status().code(),
                                body,
                                response.responseHeaders().get("Location"))));
    }

    private Mono<Void> exchange(int index, HttpCall call, ResponseClassifier classifier, LiveStats live) {
        return Mono.defer(() -> {
                    long start = System.nanoTime();
                    return send(call).doOnNext(answer -> {
                        long latency = System.nanoTime() - start;
                        live.answered(classifier.classify(index, answer.status(), answer.body(), latency), latency);
                    });
                })
                .onErrorResume(error -> {
                    classifier.failed(index, error);
                    live.failed(error);
                    return Mono.empty();
                })
                .then();
    }

    /** A request's failure in one line: the exception's simple name, and its message when it has one. */
    public static String describe(Throwable error) {
        String name = error.getClass().getSimpleName();
        return error.getMessage() == null
                ? name
                : name + ": " + error.getMessage().lines().findFirst().orElse("");
    }

    @Override
    public void close() {
        pool.disposeLater().block(Duration.ofSeconds(10));
        loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
    }

    /** An HTTP answer: status, body as text, and the Location header or null. */
    public record Answer(int status, String body, String location) {}
}
