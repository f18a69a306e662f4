package com.flashcoupon.client;

/**
 * One claim as a {@link ClaimStore} keeps it.
 *
 * @param couponId the coupon
 * @param state {@code CLAIMING} (asked, not answered yet), {@code WAITING} (holds a place), {@code ISSUED} or {@code
 *     FAILED}
 * @param walletCouponId once ISSUED
 * @param reason once FAILED
 * @param lastEventId the id of the last status event received, sent back as {@code Last-Event-ID} on resuming
 * @param updatedAtMillis when it was last written
 */
public record StoredClaim(
        long couponId, String state, Long walletCouponId, String reason, String lastEventId, long updatedAtMillis) {

    boolean isFinal() {
        return "ISSUED".equals(state) || "FAILED".equals(state);
    }

    ClaimResult result() {
        return "ISSUED".equals(state)
                ? ClaimResult.issued(couponId, walletCouponId)
                : ClaimResult.failed(couponId, reason);
    }
}
