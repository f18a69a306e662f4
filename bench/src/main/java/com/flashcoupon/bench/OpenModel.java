package com.flashcoupon.bench;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * An open model: requests start at a constant arrival rate whatever the server does, and each latency is timed from
 * the request's intended start ({@code start + i / rate}), not from when it was actually sent. A stall of the server
 * (or of the connection pool, or of this client) therefore shows in the percentiles instead of silently lowering the
 * offered load: coordinated omission corrected, as Gatling's open injection or wrk2 do.
 *
 * <p>One thread keeps the schedule; sending is asynchronous ({@link Sender}), so a slow answer never delays the next
 * start. The time source is a {@link Timeline}, so the scheduling logic is tested without a clock or a server.
 */
final class OpenModel {

    /** A time source in nanoseconds and a way to wait for a moment on it. */
    interface Timeline {
        long now();

        void sleepUntil(long nanos);

        Timeline SYSTEM = new Timeline() {
            @Override
            public long now() {
                return System.nanoTime();
            }

            @Override
            public void sleepUntil(long nanos) {
                long left;
                while ((left = nanos - System.nanoTime()) > 0) {
                    LockSupport.parkNanos(left);
                }
            }
        };
    }

    /** Starts request {@code index} and tells {@code done} how it ended, on any thread, exactly once. */
    @FunctionalInterface
    interface Sender {
        void send(int index, Completion done);
    }

    interface Completion {
        void answered(String outcome);

        void failed(Throwable error);
    }

    /** The run, and how far behind its schedule this client started requests at worst (its own lag). */
    record Result(Measured measured, double ratePerSecond, Duration maxStartLag, long unfinished) {}

    private final Timeline timeline;

    OpenModel(Timeline timeline) {
        this.timeline = timeline;
    }

    /** The intended start of request {@code i}: computed from the start each time, so rounding never drifts. */
    static long intendedStart(long startNanos, double ratePerSecond, long i) {
        return startNanos + (long) Math.floor(i * (1e9 / ratePerSecond));
    }

    /**
     * Starts {@code total} requests at {@code ratePerSecond}, then waits up to {@code drainTimeout} for those still in
     * flight; any left then are counted as unanswered.
     */
    Result run(String label, int connections, double ratePerSecond, int total, Sender sender, Duration drainTimeout) {
        if (!(ratePerSecond > 0) || total < 1) {
            throw new IllegalArgumentException("rate must be positive and total at least 1");
        }
        Recorder recorder = new Recorder();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicLong maxLag = new AtomicLong();
        long start = timeline.now();
        for (int i = 0; i < total; i++) {
            long intended = intendedStart(start, ratePerSecond, i);
            long now = timeline.now();
            if (now < intended) {
                timeline.sleepUntil(intended);
                now = timeline.now();
            }
            long lag = now - intended;
            if (lag > maxLag.get()) {
                maxLag.set(lag);
            }
            inFlight.incrementAndGet();
            sender.send(i, new Completion() {
                private boolean over;

                @Override
                public void answered(String outcome) {
                    if (!over) {
                        over = true;
                        recorder.answered(outcome, timeline.now() - intended);
                        inFlight.decrementAndGet();
                    }
                }

                @Override
                public void failed(Throwable error) {
                    if (!over) {
                        over = true;
                        recorder.failed(error);
                        inFlight.decrementAndGet();
                    }
                }
            });
        }
        long deadline = timeline.now() + drainTimeout.toNanos();
        while (inFlight.get() > 0 && timeline.now() < deadline) {
            timeline.sleepUntil(Math.min(deadline, timeline.now() + 1_000_000));
        }
        long unfinished = inFlight.get();
        for (long u = 0; u < unfinished; u++) {
            recorder.failed(new TimeoutException("no answer within " + drainTimeout + " after the last start"));
        }
        Duration elapsed = Duration.ofNanos(timeline.now() - start);
        return new Result(
                recorder.result(label, connections, elapsed),
                ratePerSecond,
                Duration.ofNanos(maxLag.get()),
                unfinished);
    }
}
