package com.flashcoupon.contract;

/**
 * The outcome of one request, published by the worker after the MySQL commit. A replayed request re-emits the same
 * result with the same {@code eventId}; consumers treat two events with one id as one.
 *
 * @param eventId stable id of this result: the request id
 * @param walletCouponId the wallet row, when ISSUED
 * @param failureReason why not, when FAILED (see {@link FailureReason})
 * @param decidedAt epoch milliseconds of the decision (of the first decision, on replays)
 */
public record IssueResult(
        String eventId,
        long couponId,
        String memberId,
        long sequence,
        Outcome outcome,
        Long walletCouponId,
        String failureReason,
        long decidedAt) {

    public enum Outcome {
        ISSUED,
        FAILED
    }

    public static IssueResult issued(IssueRequested request, long walletCouponId, long decidedAt) {
        return new IssueResult(
                request.requestId(),
                request.couponId(),
                request.memberId(),
                request.sequence(),
                Outcome.ISSUED,
                walletCouponId,
                null,
                decidedAt);
    }

    public static IssueResult failed(IssueRequested request, FailureReason reason, long decidedAt) {
        return new IssueResult(
                request.requestId(),
                request.couponId(),
                request.memberId(),
                request.sequence(),
                Outcome.FAILED,
                null,
                reason.name(),
                decidedAt);
    }
}
