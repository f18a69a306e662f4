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
 */
record Decision(String memberId, Long walletId, FailureReason reason, long decidedAt) {

    static Decision issued(String memberId, long walletId, long decidedAt) {
        return new Decision(memberId, walletId, null, decidedAt);
    }

    static Decision failed(String memberId, FailureReason reason, long decidedAt) {
        return new Decision(memberId, null, reason, decidedAt);
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
