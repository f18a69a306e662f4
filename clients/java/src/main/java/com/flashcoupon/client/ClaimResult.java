package com.flashcoupon.client;

/**
 * How a claim ended: {@link Outcome#ISSUED} with the wallet coupon, or {@link Outcome#FAILED} with a reason: the
 * server's {@code failureReason} ({@code SOLD_OUT}, {@code UNPROCESSABLE}) or the problem code that refused the claim
 * ({@code SOLD_OUT}, {@code NOT_OPEN} once the event is closed, {@code NOT_ELIGIBLE}, {@code PROOF_INVALID},
 * {@code COUPON_NOT_FOUND}, {@code UNAUTHORIZED}, {@code FORBIDDEN}, {@code INVALID_REQUEST}), or {@code GAVE_UP} when
 * the client's own attempts ran out.
 */
public record ClaimResult(long couponId, Outcome outcome, Long walletCouponId, String reason) {

    public enum Outcome {
        ISSUED,
        FAILED
    }

    public static ClaimResult issued(long couponId, long walletCouponId) {
        return new ClaimResult(couponId, Outcome.ISSUED, walletCouponId, null);
    }

    public static ClaimResult failed(long couponId, String reason) {
        return new ClaimResult(couponId, Outcome.FAILED, null, reason);
    }

    public boolean isIssued() {
        return outcome == Outcome.ISSUED;
    }
}
