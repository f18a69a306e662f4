package com.flashcoupon.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;

/**
 * The status resource of one member's request (docs/http-api.md): {@code position} counts the admitted requests of the coupon
 * not yet issued that are ahead of this one, plus one; {@code failureReason} appears only when FAILED.
 */
public record IssueStatus(
        long couponId,
        String memberId,
        State status,
        Long position,
        Long estimatedWaitSeconds,
        Long walletCouponId,
        @JsonInclude(JsonInclude.Include.NON_NULL) String failureReason) {

    public enum State {
        WAITING,
        ISSUED,
        FAILED
    }

    /**
     * A waiting request. Issuance follows admission order, so the requests ahead and not yet done are about
     * {@code sequence - done - 1}.
     */
    public static IssueStatus waiting(long couponId, String memberId, long sequence, long done, int rate) {
        long position = Math.max(1, sequence - done);
        long wait = rate > 0 ? (position + rate - 1) / rate : position;
        return new IssueStatus(couponId, memberId, State.WAITING, position, wait, null, null);
    }

    public static IssueStatus issued(long couponId, String memberId, long walletCouponId) {
        return new IssueStatus(couponId, memberId, State.ISSUED, null, null, walletCouponId, null);
    }

    public static IssueStatus failed(long couponId, String memberId, String reason) {
        return new IssueStatus(couponId, memberId, State.FAILED, null, null, null, reason);
    }

    public boolean isFinal() {
        return status != State.WAITING;
    }
}
