package com.flashcoupon.bench;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/** Counts outcomes and records latencies from many threads at once; {@link #result} snapshots them. */
final class Recorder {

    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();
    private final Histogram latencyMicros = new ConcurrentHistogram(3);
    private final AtomicReference<String> firstError = new AtomicReference<>();
    private final LongAdder done = new LongAdder();

    void answered(String outcome, long latencyNanos) {
        latencyMicros.recordValue(Math.max(1, TimeUnit.NANOSECONDS.toMicros(latencyNanos)));
        count(outcome);
    }

    void failed(Throwable error) {
        if (firstError.get() == null) {
            String name = error.getClass().getSimpleName();
            firstError.compareAndSet(null, error.getMessage() == null ? name : name + ": " + error.getMessage());
        }
        count(Measured.NO_ANSWER);
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, o -> new LongAdder()).increment();
        done.increment();
    }

    long done() {
        return done.sum();
    }

    String firstError() {
        return firstError.get();
    }

    Measured result(String label, int concurrency, Duration elapsed) {
        Map<String, Long> counts = new TreeMap<>();
        outcomes.forEach((k, v) -> counts.put(k, v.sum()));
        return new Measured(label, concurrency, counts, latencyMicros.copy(), elapsed);
    }
}
