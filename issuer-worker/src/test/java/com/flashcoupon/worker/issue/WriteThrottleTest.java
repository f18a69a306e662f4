package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** The rate limiter on a fake clock: parking advances the clock instead of sleeping. */
class WriteThrottleTest {

    private final FakeClock clock = new FakeClock();

    @Nested
    class Rate {

        @Test
        void shouldNotWaitWhenRequestFitsInTheBucket() {
            var throttle = new WriteThrottle(200, clock, clock);

            throttle.acquire(200);

            assertThat(clock.parked()).isZero();
        }

        @Test
        void shouldSpreadWritesOverTimeWhenRequestIsLargerThanTheBucket() {
            var throttle = new WriteThrottle(200, clock, clock);

            throttle.acquire(600);

            // 200 were there at once, the other 400 come at 200 per second
            assertThat(clock.parked()).isEqualTo(Duration.ofSeconds(2));
        }

        @Test
        void shouldHoldTheRateWhenManyBatchesFollowEachOther() {
            var throttle = new WriteThrottle(1000, clock, clock);

            for (int i = 0; i < 50; i++) {
                throttle.acquire(100);
            }

            assertThat(clock.parked()).isEqualTo(Duration.ofSeconds(4));
        }

        @Test
        void shouldRefillWhenTimePassesBetweenBatches() {
            var throttle = new WriteThrottle(100, clock, clock);
            throttle.acquire(100);

            clock.advance(Duration.ofMillis(500));
            throttle.acquire(50);

            assertThat(clock.parked()).isZero();
        }
    }

    @Nested
    class Validation {

        @Test
        void shouldRefuseWhenRateIsNotPositive() {
            assertThatThrownBy(() -> new WriteThrottle(0, clock, clock)).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldKeepInterruptFlagWhenInterruptedWhileWaiting() {
            BlockingStrategy interrupted = nanos -> {
                throw new InterruptedException();
            };
            var throttle = new WriteThrottle(10, clock, interrupted);
            throttle.acquire(10);

            assertThatThrownBy(() -> throttle.acquire(1)).isInstanceOf(IllegalStateException.class);
            assertThat(Thread.interrupted()).isTrue();
        }
    }

    private static final class FakeClock implements TimeMeter, BlockingStrategy {

        private long now;
        private long parked;

        @Override
        public long currentTimeNanos() {
            return now;
        }

        @Override
        public boolean isWallClockBased() {
            return false;
        }

        @Override
        public void park(long nanos) {
            now += nanos;
            parked += nanos;
        }

        void advance(Duration duration) {
            now += duration.toNanos();
        }

        Duration parked() {
            return Duration.ofNanos(parked);
        }
    }
}
