package com.flashcoupon.api.admin;

import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.db.Coupon;
import java.time.Instant;

/**
 * A coupon as an operator sees it: the member view plus the rate, the window, live counters and where the event is in
 * its life ({@code lifecycle}; {@code settledAt} and {@code retiredAt} when it got there). A retired event shows its
 * final figures, kept in MySQL.
 */
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
        Stats stats,
        Lifecycle lifecycle,
        Instant settledAt,
        Instant retiredAt) {

    /** docs/architecture.md, "An event's life". */
    enum Lifecycle {
        SCHEDULED,
        OPEN,
        /** admission over (sold out or closed); admitted members are still being issued */
        DRAINING,
        /** every admitted member issued or told FAILED; the Redis state stays for the retention */
        SETTLED,
        /** the Redis state is gone; MySQL answers for the event */
        RETIRED
    }

    /**
     * @param unknown admissions a lost Redis held that were never handed to Kafka, counted when it was restored from
     *     MySQL: those members were told 202 and are unknown now (docs/operations.md, "Redis lost its data")
     */
    record Stats(
            long admitted,
            long rejectedSoldOut,
            long published,
            long issued,
            long failed,
            long notified,
            long deadLettered,
            long unknown) {}

    /** MySQL counts what was written (issued, failed, ...), Redis what was admitted and published. */
    static AdminCouponView of(Coupon coupon, CouponState state) {
        var stats = new Stats(
                state.admitted(),
                state.rejectedSoldOut(),
                Math.max(state.published(), coupon.publishedCount()),
                coupon.issuedCount(),
                coupon.failedCount(),
                coupon.notifiedCount(),
                coupon.deadLetteredCount(),
                coupon.unknownCount());
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
                stats,
                lifecycle(coupon, state),
                coupon.settledAt(),
                coupon.retiredAt());
    }

    static Lifecycle lifecycle(Coupon coupon, CouponState state) {
        if (coupon.retired()) {
            return Lifecycle.RETIRED;
        }
        if (coupon.settledAt() != null) {
            return Lifecycle.SETTLED;
        }
        return switch (state.status()) {
            case SCHEDULED -> Lifecycle.SCHEDULED;
            case OPEN -> Lifecycle.OPEN;
            case SOLD_OUT, CLOSED -> Lifecycle.DRAINING;
        };
    }
}
