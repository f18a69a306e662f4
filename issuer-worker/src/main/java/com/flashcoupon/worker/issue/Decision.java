package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;

/**
 * What MySQL holds for one member of one coupon: a wallet row or a failure row. Replays read the same row back, so
 * they re-emit the same result.
 *
 * @param walletId the wallet row id when ISSUED, else null
 * @param reason why not, when FAILED, else null
 * @param decidedAt epoch ms of {@code issued_at} or {@code failed_at}
 * @param sequence the admission sequence MySQL recorded with it ({@code request_seq}): the member's place in the
 *     Redis queue, written back there when a restored Redis no longer has it
 */
record Decision(String memberId, Long walletId, FailureReason reason, long decidedAt, long sequence) {

    static Decision issued(String memberId, long walletId, long decidedAt, long sequence) {
        return new Decision(memberId, walletId, null, decidedAt, sequence);
    }

    static Decision failed(String memberId, FailureReason reason, long decidedAt, long sequence) {
        return new Decision(memberId, null, reason, decidedAt, sequence);
    }

    boolean isIssued() {
        return walletId != null;
    }

    IssueResult toResult(IssueRequested request) {
        return isIssued()
                ? IssueResult.issued(request, walletId, decidedAt)
                : IssueResult.failed(request, reason, decidedAt);
    }

    /** The value of the member's field in {@link CouponKeys#result(long)}. */
    String statusValue() {
        return isIssued() ? CouponKeys.ISSUED_PREFIX + walletId : CouponKeys.FAILED_PREFIX + reason.name();
    }
}
