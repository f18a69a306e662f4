package com.flashcoupon.worker.issue;

/** A request names a coupon that MySQL does not have: the record can never be written. */
class UnknownCouponException extends RuntimeException {

    private final long couponId;

    UnknownCouponException(long couponId) {
        super("coupon " + couponId + " does not exist");
        this.couponId = couponId;
    }

    long couponId() {
        return couponId;
    }
}
