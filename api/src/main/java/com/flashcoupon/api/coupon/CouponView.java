package com.flashcoupon.api.coupon;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.flashcoupon.api.redemption.Benefit;
import java.time.Instant;

/** {@code GET /api/v1/coupons/{id}} (docs/http-api.md). */
record CouponView(
        long id,
        String name,
        long totalQuantity,
        long remainingQuantity,
        Instant openAt,
        Instant closeAt,
        CouponState.Status status,
        @JsonInclude(JsonInclude.Include.NON_NULL) Benefit benefit,
        @JsonInclude(JsonInclude.Include.NON_NULL) Object draw) {

    /** {@code benefit}: null when the coupon has none; {@code draw}: null for an event without a draw. */
    static CouponView of(CouponState state, Benefit benefit, Object draw) {
        return new CouponView(
                state.id(),
                state.name(),
                state.total(),
                state.remaining(),
                state.openAtInstant(),
                state.closeAtInstant(),
                state.status(),
                benefit,
                draw);
    }
}
