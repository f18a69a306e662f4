package com.flashcoupon.loadgen.engine;

import java.time.Duration;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * What a run did: counts by outcome label, the latency of answered requests in microseconds, and how long it took.
 * {@code firstError} describes the first request that got no answer, or is null.
 */
public record LoadResult(
        int total, Map<String, Long> outcomes, Histogram latencyMicros, Duration elapsed, String firstError) {

    public LoadResult {
        outcomes = Map.copyOf(outcomes);
    }

    public long count(String outcome) {
        return outcomes.getOrDefault(outcome, 0L);
    }

    /** {@code n} per second of the run's length. */
    public double perSecond(long n) {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds > 0 ? n / seconds : 0;
    }

    /** Latency at a percentile (0 to 100) in milliseconds, 0 when nothing was answered. */
    public double latencyMillis(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }
}
