package com.flashcoupon.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The delay before a retry: never sooner than Retry-After, then full jitter in a window that doubles up to a cap. */
class BackoffTest {

    private final Backoff backoff = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    @Test
    void shouldNeverRetrySoonerThanRetryAfterAndSpreadWithinTheWindow() {
        Random random = new Random(7);
        for (int attempt = 0; attempt < 12; attempt++) {
            long window = Math.min(30_000, 1_000L << attempt);
            long least = Long.MAX_VALUE;
            long most = 0;
            for (int i = 0; i < 2_000; i++) {
                long delay = backoff.delayMillis(attempt, 2_000, bound -> random.nextLong(bound));
                least = Math.min(least, delay);
                most = Math.max(most, delay);
            }
            assertThat(least).as("attempt %d", attempt).isGreaterThanOrEqualTo(2_000);
            assertThat(most).as("attempt %d", attempt).isLessThan(2_000 + window);
            // full jitter: the delays fill the window, they do not bunch at its start or end
            assertThat(most - least).as("attempt %d", attempt).isGreaterThan(window * 9 / 10);
        }
    }

    @Test
    void shouldCapTheWindowForLargeAttemptNumbers() {
        assertThat(backoff.delayMillis(1_000, 0, bound -> bound - 1)).isEqualTo(29_999);
        assertThat(backoff.delayMillis(62, 0, bound -> bound - 1)).isEqualTo(29_999);
        assertThat(backoff.delayMillis(0, 0, bound -> bound - 1)).isEqualTo(999);
    }
}
