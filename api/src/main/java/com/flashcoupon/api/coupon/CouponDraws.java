package com.flashcoupon.api.coupon;

import reactor.core.publisher.Mono;

/**
 * The member view's {@code draw} for a fair-start event (docs/http-api.md): what anyone may see of its draw, provided by
 * the draw package so that this one does not depend on it. Empty for an event without a draw.
 */
public interface CouponDraws {

    /** The draw as the public record shows it, given the state Redis holds for the event; empty: no draw. */
    Mono<Object> forMember(long couponId, CouponState state);
}
