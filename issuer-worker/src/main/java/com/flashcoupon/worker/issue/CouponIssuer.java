package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Writes one coupon's share of a batch in ONE MySQL transaction: lock the coupon row, skip members already decided
 * (a replay), issue the first {@code total - issued} new members in sequence order, fail the rest SOLD_OUT, move the
 * guarded counters, and read every member's decision back.
 */
@Component
class CouponIssuer {

    private final CouponRepository coupons;
    private final IssueRepository records;
    private final TransactionTemplate transaction;
    private final IssueMetrics metrics;

    CouponIssuer(
            CouponRepository coupons, IssueRepository records, TransactionTemplate transaction, IssueMetrics metrics) {
        this.coupons = coupons;
        this.records = records;
        this.transaction = transaction;
        this.metrics = metrics;
    }

    /**
     * @param requests the coupon's requests in sequence order, one per member (see {@link IssuePlan#byCoupon})
     * @return each member's decision, as committed
     * @throws UnknownCouponException when the coupon does not exist (nothing is written)
     */
    Map<String, Decision> issue(long couponId, List<IssueRequested> requests) {
        long start = System.nanoTime();
        Written written = transaction.execute(status -> write(couponId, requests));
        metrics.written(written.issued(), FailureReason.SOLD_OUT, written.failed(), System.nanoTime() - start);
        return written.decisions();
    }

    /**
     * Records a dead-lettered request as FAILED {@code UNPROCESSABLE} and counts it on its coupon, unless the member
     * was decided before (then that decision stands).
     *
     * @return the member's decision, or empty when the coupon does not exist
     */
    Optional<Decision> failUnprocessable(IssueRequested request) {
        long start = System.nanoTime();
        Written written = transaction.execute(status -> writeUnprocessable(request));
        metrics.written(0, FailureReason.UNPROCESSABLE, written.failed(), System.nanoTime() - start);
        return Optional.ofNullable(written.decisions().get(request.memberId()));
    }

    private Written write(long couponId, List<IssueRequested> requests) {
        Coupon coupon = coupons.lockForIssue(couponId).orElseThrow(() -> new UnknownCouponException(couponId));
        List<String> members = requests.stream().map(IssueRequested::memberId).toList();
        IssuePlan plan = IssuePlan.of(
                requests, records.decidedMembers(couponId, members), coupon.totalQuantity() - coupon.issuedCount());

        int issued = records.insertWallets(couponId, plan.toIssue(), coupon.validDays());
        if (issued > 0 && !coupons.addIssued(couponId, issued)) {
            throw new IllegalStateException("stock guard of coupon " + couponId + " refused " + issued
                    + " wallets although the row was locked; rolling back");
        }
        int failed = records.insertFailures(couponId, plan.soldOut(), FailureReason.SOLD_OUT);
        if (failed > 0) {
            coupons.addFailed(couponId, failed);
        }

        Map<String, Decision> decisions = records.decisions(couponId, members);
        if (decisions.size() != members.size()) {
            throw new IllegalStateException("coupon " + couponId + ": " + (members.size() - decisions.size())
                    + " members have neither a wallet nor a failure after the write; rolling back");
        }
        return new Written(decisions, issued, failed);
    }

    private Written writeUnprocessable(IssueRequested request) {
        long couponId = request.couponId();
        if (coupons.lockForIssue(couponId).isEmpty()) {
            return new Written(Map.of(), 0, 0);
        }
        List<String> member = List.of(request.memberId());
        int failed = records.decidedMembers(couponId, member).isEmpty()
                ? records.insertFailures(couponId, List.of(request), FailureReason.UNPROCESSABLE)
                : 0;
        if (failed > 0) {
            coupons.addDeadLettered(couponId, failed);
            coupons.addFailed(couponId, failed);
        }
        return new Written(records.decisions(couponId, member), 0, failed);
    }

    private record Written(Map<String, Decision> decisions, int issued, int failed) {}
}
