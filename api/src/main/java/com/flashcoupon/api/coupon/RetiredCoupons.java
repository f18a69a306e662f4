package com.flashcoupon.api.coupon;

import com.flashcoupon.db.Coupon;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.Optional;
import org.springframework.stereotype.Component;

/**
 * The retired events this instance has met. Retirement is final, so once MySQL said an event is retired, requests about
 * it are answered from here and MySQL without asking Redis again. Bounded: an event pushed out is read from MySQL again
 * the next time someone asks (Redis answers "missing", the mirror reads the row and sees it retired).
 */
@Component
public class RetiredCoupons {

    static final int MAX_HELD = 10_000;

    private final Cache<Long, Coupon> held =
            Caffeine.newBuilder().maximumSize(MAX_HELD).build();

    public Optional<Coupon> find(long couponId) {
        return Optional.ofNullable(held.getIfPresent(couponId));
    }

    public void remember(Coupon coupon) {
        if (coupon.retired()) {
            held.put(coupon.id(), coupon);
        }
    }
}
