package com.flashcoupon.api.coupon;

import java.time.Instant;

/** {@code GET /api/v1/coupons/{id}} (docs/http-api.md). */
record CouponView(
        long id,
        String name,
        long totalQuantity,
        long remainingQuantity,
        Instant openAt,
        Instant closeAt,
        CouponState.Status status) {

    static CouponView of(CouponState state) {
        return new CouponView(
                state.id(),
                state.name(),
                state.total(),
                state.remaining(),
                state.openAtInstant(),
                state.closeAtInstant(),
                state.status());
    }
}
