package com.flashcoupon.api.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.api.status.IssuePace;
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
        Instant retiredAt,
        Pace pace,
        Coupon.Queueing queueing,
        @JsonInclude(JsonInclude.Include.NON_NULL) Integer queueingWindowSeconds,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant drawAt) {

    /**
     * The rates behind the issuance and the waiting estimates (docs/http-api.md): the operator's, the drainer's
     * effective rate (below it while the database cannot keep up, with the reason), the rate measured from the
     * outcomes, the one estimates assume now, and the estimate's measured error on the instance that answers.
     */
    record Pace(
            int configuredRatePerSecond,
            double effectiveRatePerSecond,
            String rateCutReason,
            double measuredRatePerSecond,
            double assumedRatePerSecond,
            EstimateError estimateError) {}

    /** |estimated - actual| / actual of the estimates given at admission, for waits of 2 s or more. */
    record EstimateError(int samples, Double p50, Double p90) {}

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
        return of(coupon, state, IssuePace.Snapshot.NONE);
    }

    static AdminCouponView of(Coupon coupon, CouponState state, IssuePace.Snapshot seen) {
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
                coupon.retiredAt(),
                pace(coupon, seen),
                coupon.queueing(),
                coupon.drawAt() == null ? null : coupon.queueingWindowSeconds(),
                coupon.drawAt());
    }

    /** What this instance saw of the coupon's drain; the configured rate alone when it saw nothing (not drained). */
    private static Pace pace(Coupon coupon, IssuePace.Snapshot seen) {
        int configured = coupon.issueRatePerSecond();
        boolean known = seen.configuredRate() > 0;
        return new Pace(
                configured,
                known ? Math.min(configured, seen.effectiveRate()) : configured,
                known && !seen.cutReason().isEmpty() ? seen.cutReason() : null,
                known ? seen.measuredRate() : 0,
                known ? seen.assumedRate() : configured,
                new EstimateError(seen.errorSamples(), seen.errorP50(), seen.errorP90()));
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
