package com.flashcoupon.api.coupon;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.springframework.stereotype.Component;

/**
 * Coupon ids MySQL said it does not know, remembered for a few seconds, so that members asking about ids that do not
 * exist (a typo, a scan, a flood of random ids) cost one MySQL read per id and per {@link #TTL}, not one per request.
 * Bounded: the ids asked most recently are kept, and an id pushed out is read again. Caffeine, already the api's cache
 * ({@link RetiredCoupons}), keeps the bound and the expiry without a sweeper of our own.
 *
 * <p>An event created on this instance is forgotten here at once ({@link CouponMirror#mirror}); another instance may
 * answer 404 for a new event for up to {@link #TTL}, well inside the time between an event's announcement and its
 * opening. Operators' reads never look here.
 */
@Component
public class UnknownCoupons {

    static final Duration TTL = Duration.ofSeconds(5);

    static final int MAX_HELD = 100_000;

    private final Cache<Long, Boolean> held =
            Caffeine.newBuilder().maximumSize(MAX_HELD).expireAfterWrite(TTL).build();

    UnknownCoupons(MeterRegistry meters) {
        Gauge.builder("coupon.unknown.ids", held, Cache::estimatedSize)
                .description("Coupon ids remembered as unknown to MySQL (answered 404 without reading it again)")
                .register(meters);
    }

    /** Whether MySQL said, within the last few seconds, that it has no such coupon. */
    public boolean isUnknown(long couponId) {
        return held.getIfPresent(couponId) != null;
    }

    void remember(long couponId) {
        held.put(couponId, Boolean.TRUE);
    }

    void forget(long couponId) {
        held.invalidate(couponId);
    }
}
