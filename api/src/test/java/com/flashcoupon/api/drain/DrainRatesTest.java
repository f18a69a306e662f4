package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Every meter series tagged with a coupon goes when the event leaves the drain (it retired): the rate gauges did, the
 * rate-cut counters ({@code coupon.drain.rate.cuts}) stayed for the process's life, one set per past event.
 */
class DrainRatesTest {

    private static final long COUPON = 9_000_000_001L;

    private final StringRedisTemplate redis = TestEnvironment.redis();
    private final SimpleMeterRegistry meters = new SimpleMeterRegistry();
    private final DrainRates rates =
            new DrainRates(redis, DrainSettings.drain(Duration.ofMillis(100)), new IssuePace(), meters);

    @AfterEach
    void removeKeys() {
        redis.delete(CouponKeys.meta(COUPON));
    }

    @Test
    void shouldRemoveEverySeriesOfACouponWhenItIsNoLongerDrained() {
        redis.opsForHash().put(CouponKeys.meta(COUPON), "rate", "100");
        // drain_claim.lua's reply: owned, cursor 10 of 50 queued, rate 100, the worker writing in 900 ms just now
        List<?> claim = Arrays.asList(1L, 10L, 50L, 100L, 0L, 5L, "", "", "900", 0L);

        double rate = rates.decide(COUPON, claim, true);

        assertThat(rate).as("cut for the slow writes").isLessThan(100);
        assertThat(meters.find("coupon.drain.rate.cuts")
                        .tag("coupon", Long.toString(COUPON))
                        .counters())
                .isNotEmpty();
        assertThat(meters.find("coupon.drain.rate.effective")
                        .tag("coupon", Long.toString(COUPON))
                        .gauges())
                .isNotEmpty();

        rates.retainOnly(Set.of());

        assertThat(meters.getMeters())
                .as("series tagged with the retired coupon")
                .noneMatch(meter -> Long.toString(COUPON).equals(meter.getId().getTag("coupon")));
    }
}
