package com.flashcoupon.api.blocking;

import java.util.concurrent.Callable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Runs blocking work (JDBC) off the event loop, on a bounded scheduler sized like the connection pool, so a slow
 * database queues callers instead of starving Netty's threads.
 */
@Component
public class BlockingIo implements DisposableBean {

    private final Scheduler scheduler = Schedulers.newBoundedElastic(16, 10_000, "jdbc");

    public <T> Mono<T> call(Callable<T> work) {
        return Mono.fromCallable(work).subscribeOn(scheduler);
    }

    public Mono<Void> run(Runnable work) {
        return Mono.<Void>fromRunnable(work).subscribeOn(scheduler);
    }

    @Override
    public void destroy() {
        scheduler.dispose();
    }
}
