package com.flashcoupon.api.overload;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.config.ApiProperties;
import com.netflix.concurrency.limits.Limit;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The guard's limit fed synthetic samples (time is the samples' own start times, no clock): it holds through a slow
 * exchange among fast ones, shrinks when latency stays up, and stays within its bounds.
 */
class OverloadLimitTest {

    private static final ApiProperties.Overload SETTINGS =
            new ApiProperties.Overload(true, 50, 20, 500, Duration.ofSeconds(1));
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private long now;

    /** {@code n} exchanges of {@code rtt} ms, one every {@code every} ms, each with the limit's worth in flight. */
    private void feed(Limit limit, int n, long rttMs, double everyMs) {
        for (int i = 0; i < n; i++) {
            now += (long) (everyMs * MS);
            limit.onSample(now, rttMs * MS, limit.getLimit(), false);
        }
    }

    @Test
    void shouldHoldThroughASlowExchangeAmongFastOnes() {
        Limit limit = OverloadGuard.limit(SETTINGS);
        feed(limit, 5_000, 2, 0.5);
        int before = limit.getLimit();

        // one exchange 25 times slower than the rest (a GC pause, a descheduled thread), then fast ones again
        feed(limit, 1, 50, 0.5);
        feed(limit, 19, 2, 0.5);

        assertThat(limit.getLimit()).isGreaterThanOrEqualTo(before);
    }

    @Test
    void shouldShrinkWhenLatencyStaysUpAndGrowBackWhenItFalls() {
        Limit limit = OverloadGuard.limit(SETTINGS);
        feed(limit, 20_000, 2, 0.5);
        int calm = limit.getLimit();

        // requests queueing: every exchange five times slower, for two seconds
        feed(limit, 4_000, 10, 0.5);
        int queued = limit.getLimit();
        assertThat(queued).isLessThan(calm).isGreaterThanOrEqualTo(SETTINGS.minLimit());

        feed(limit, 20_000, 2, 0.5);
        assertThat(limit.getLimit()).isGreaterThan(queued);
    }

    @Test
    void shouldStayWithinItsBounds() {
        Limit limit = OverloadGuard.limit(SETTINGS);
        feed(limit, 200_000, 1, 0.05);
        assertThat(limit.getLimit()).isLessThanOrEqualTo(SETTINGS.maxLimit());

        int fast = limit.getLimit();

        // every exchange a thousand times slower: far down, never under the minimum
        for (int second = 0; second < 20; second++) {
            feed(limit, 1_000, 1_000, 1);
            assertThat(limit.getLimit()).isGreaterThanOrEqualTo(SETTINGS.minLimit());
        }
        assertThat(limit.getLimit()).isLessThan(fast / 4);
    }
}
