package com.flashcoupon.api.redemption;

/** Where one order's redemption of a wallet coupon is: held, confirmed, or ended one of three ways. */
public enum RedemptionState {
    /** the order holds the coupon until the reservation's {@code expiresAt} */
    RESERVED,
    /** confirmed: the coupon is USED by this order */
    USED,
    /** given back by the order service before it was confirmed */
    RELEASED,
    /** not confirmed within the reservation's time ({@code COUPON_RESERVATION_TTL}); given back by the api */
    TIMED_OUT,
    /** the confirmed use was cancelled (the order was refunded): the coupon came back, or expired */
    CANCELLED
}
