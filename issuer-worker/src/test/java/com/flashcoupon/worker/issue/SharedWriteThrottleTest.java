package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.worker.support.TestRedis;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Two workers (each its own Redis client, as two processes would have) share one write limit through the real Redis:
 * together they write at the limit, not at twice it. Only a lower bound on the time: a slow machine may take longer.
 */
class SharedWriteThrottleTest {

    @Test
    void shouldHoldTwoWorkersTogetherToTheLimit() {
        TestRedis.flush();
        AbstractRedisClient first = RedisClient.create(TestRedis.url());
        AbstractRedisClient second = RedisClient.create(TestRedis.url());
        try {
            var throttles = List.of(WriteThrottle.shared(() -> first, 50), WriteThrottle.shared(() -> second, 50));
            long start = System.nanoTime();

            CompletableFuture.allOf(throttles.stream()
                            .map(throttle -> CompletableFuture.runAsync(() -> {
                                for (int batch = 0; batch < 5; batch++) {
                                    throttle.acquire(15);
                                }
                            }))
                            .toArray(CompletableFuture[]::new))
                    .join();

            // 150 writes against one bucket of 50 per second, full at the start: at least 2 s. Two buckets of their
            // own (the limit per instance) would have let them through in 0.5 s.
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(1800));
        } finally {
            first.shutdown();
            second.shutdown();
        }
    }
}
