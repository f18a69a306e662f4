package com.flashcoupon.api.admin;

import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.db.Coupon;
import java.time.Instant;

/** A coupon as an operator sees it: the member view plus the rate, the window and live counters. */
record AdminCouponView(
        long id,
        String name,
        long totalQuantity,
        long remainingQuantity,
        Instant openAt,
        Instant closeAt,
        CouponState.Status status,
        int issueRatePerSecond,
        int validDays,
        Instant createdAt,
        long waiting,
        Stats stats) {

    record Stats(
            long admitted,
            long rejectedSoldOut,
            long published,
            long issued,
            long failed,
            long notified,
            long deadLettered) {}

    /** MySQL counts what was written (issued, failed, ...), Redis what was admitted and published. */
    static AdminCouponView of(Coupon coupon, CouponState state) {
        var stats = new Stats(
                state.admitted(),
                state.rejectedSoldOut(),
                Math.max(state.published(), coupon.publishedCount()),
                coupon.issuedCount(),
                coupon.failedCount(),
                coupon.notifiedCount(),
                coupon.deadLetteredCount());
        long waiting = Math.max(0, state.admitted() - coupon.issuedCount() - coupon.failedCount());
        return new AdminCouponView(
                coupon.id(),
                coupon.name(),
                coupon.totalQuantity(),
                state.remaining(),
                coupon.openAt(),
                coupon.closeAt(),
                state.status(),
                coupon.issueRatePerSecond(),
                coupon.validDays(),
                coupon.createdAt(),
                waiting,
                stats);
    }
}
