package com.flashcoupon.loadgen.engine;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/** The counters of a run in progress, written by event-loop threads and read by anyone. */
public final class LiveStats {

    private final int total;
    private final long startNanos = System.nanoTime();
    private final LongAdder done = new LongAdder();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final AtomicReference<String> firstError = new AtomicReference<>();
    /** Latency of answered requests in microseconds; resizes itself, 3 significant digits. */
    private final Histogram latencyMicros = new ConcurrentHistogram(3);

    private volatile long endNanos;

    LiveStats(int total) {
        this.total = total;
    }

    void answered(String outcome, long latencyNanos) {
        latencyMicros.recordValue(Math.max(1, TimeUnit.NANOSECONDS.toMicros(latencyNanos)));
        count(outcome);
    }

    void failed(Throwable error) {
        if (firstError.get() == null) {
            firstError.compareAndSet(null, LoadRunner.describe(error));
        }
        count(LoadRunner.CONNECTION_ERROR);
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
        done.increment();
    }

    void finish() {
        endNanos = System.nanoTime();
    }

    public int total() {
        return total;
    }

    public long done() {
        return done.sum();
    }

    /** Counts by outcome label, sorted by label. */
    public Map<String, Long> outcomes() {
        Map<String, Long> snapshot = new TreeMap<>();
        outcomes.forEach((outcome, count) -> snapshot.put(outcome, count.sum()));
        return snapshot;
    }

    /** Time since the run started, or its whole length once it finished. */
    public Duration elapsed() {
        long end = endNanos;
        return Duration.ofNanos((end == 0 ? System.nanoTime() : end) - startNanos);
    }

    LoadResult result() {
        return new LoadResult(total, outcomes(), latencyMicros.copy(), elapsed(), firstError.get());
    }
}
