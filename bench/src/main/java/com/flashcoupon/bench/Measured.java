package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.LoadResult;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;

/**
 * What one measured run did: requests by outcome label, the latency of every answered request in microseconds, and
 * how long the run took. {@code errors} counts requests without an answer (refused, reset, timed out).
 */
public record Measured(
        String label, int concurrency, Map<String, Long> outcomes, Histogram latencyMicros, Duration elapsed) {

    /** The label the request engine gives a request that got no answer. */
    public static final String NO_ANSWER = com.flashcoupon.loadgen.engine.LoadRunner.CONNECTION_ERROR;

    public Measured {
        outcomes = java.util.Collections.unmodifiableMap(new TreeMap<>(outcomes));
    }

    static Measured of(String label, int concurrency, LoadResult result) {
        return new Measured(label, concurrency, result.outcomes(), result.latencyMicros(), result.elapsed());
    }

    public long total() {
        return outcomes.values().stream().mapToLong(Long::longValue).sum();
    }

    public long count(String outcome) {
        return outcomes.getOrDefault(outcome, 0L);
    }

    /** Requests that got no answer, plus answers 5xx and 429: what a crowd must not see. */
    public long errors() {
        long errors = count(NO_ANSWER);
        for (Map.Entry<String, Long> e : outcomes.entrySet()) {
            if (e.getKey().startsWith("5") || e.getKey().startsWith("429")) {
                errors += e.getValue();
            }
        }
        return errors;
    }

    /** Answered or not, per second of the run. */
    public double perSecond() {
        double seconds = elapsed.toNanos() / 1e9;
        return seconds > 0 ? total() / seconds : 0;
    }

    /** Latency at a percentile (0 to 100) in milliseconds; 0 when nothing was answered. */
    public double millis(double percentile) {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getValueAtPercentile(percentile) / 1000.0;
    }

    public double maxMillis() {
        return latencyMicros.getTotalCount() == 0 ? 0 : latencyMicros.getMaxValue() / 1000.0;
    }
}
