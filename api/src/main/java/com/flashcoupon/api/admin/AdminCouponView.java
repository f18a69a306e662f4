package com.flashcoupon.api.admin;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.api.draw.DrawRecord;
import com.flashcoupon.api.redemption.Benefit;
import com.flashcoupon.api.redemption.RedemptionCounts;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.db.Coupon;
import java.time.Instant;

/**
 * A coupon as an operator sees it: the member view plus the rate, the window, live counters and where the event is in
 * its life ({@code lifecycle}; {@code settledAt} and {@code retiredAt} when it got there), and the Redis hash slots its
 * admission state is spread over ({@code stockShards}). A retired event shows its final figures, kept in MySQL.
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
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant drawAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Draw draw,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant announceAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Benefit benefit,
        @JsonInclude(JsonInclude.Include.NON_NULL) RedemptionCounts.Counts redemption,
        int stockShards) {

    /** With the coupon's benefit (null: none) and what became of its issued coupons. */
    AdminCouponView withRedemption(Benefit benefit, RedemptionCounts.Counts counts) {
        return new AdminCouponView(
                id,
                name,
                totalQuantity,
                remainingQuantity,
                openAt,
                closeAt,
                status,
                issueRatePerSecond,
                validDays,
                createdAt,
                waiting,
                stats,
                lifecycle,
                settledAt,
                retiredAt,
                pace,
                queueing,
                queueingWindowSeconds,
                drawAt,
                draw,
                announceAt,
                benefit,
                counts.ofIssued(stats.issued()),
                stockShards);
    }

    /**
     * A RANDOMIZED_START event's draw (docs/architecture.md, "A draw anyone can check"): the commitment from the
     * event's creation on; the entrants and places so far while the window is open; once the draw is recorded, the seed
     * and what the draw was made from and gave, so that anyone can recompute it ({@code bin/verify-draw}).
     *
     * @param state {@code OPEN} (the window), {@code DRAWING} (closed, not recorded yet), {@code MADE} (recorded)
     * @param commitment lower-case hex SHA-256 of the seed; null for a draw made before draws had seeds
     * @param entrants the members in the draw (so far, until it is made)
     * @param places how many of them the draw places (would place, until it is made)
     * @param placed how many it placed; null until it is made
     * @param seed lower-case hex of the seed's 32 bytes; null until the draw is made
     * @param entrantsDigest lower-case hex SHA-256 of the entrant list; null until the draw is made
     * @param firstSequence the admission sequence of place 1 (place p has firstSequence + p - 1); null until made
     * @param entrantsRoot lower-case hex SHA-256 of the entrant set frozen at the window's close (the entrants' digest
     *     of the set the draw is made from); null until it is frozen
     * @param functionVersion the draw function it was made with (1, 2, or 3 with a beacon round); null until made
     * @param beacon the randomness beacon round mixed in (function 3); null otherwise
     */
    record Draw(
            DrawState state,
            String commitment,
            Instant drawAt,
            long entrants,
            long places,
            @JsonInclude(JsonInclude.Include.NON_NULL) Instant drawnAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer placed,
            @JsonInclude(JsonInclude.Include.NON_NULL) String seed,
            @JsonInclude(JsonInclude.Include.NON_NULL) String entrantsDigest,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long firstSequence,
            @JsonInclude(JsonInclude.Include.NON_NULL) String entrantsRoot,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer functionVersion,
            @JsonInclude(JsonInclude.Include.NON_NULL) com.flashcoupon.api.draw.PublicDraw.Beacon beacon) {

        static Draw of(DrawRecord record, CouponState state) {
            if (record.recorded()) {
                return new Draw(
                        DrawState.MADE,
                        record.commitment(),
                        record.drawAt(),
                        record.entrants(),
                        record.placed(),
                        record.drawnAt(),
                        record.placed(),
                        record.seed(),
                        record.entrantsDigest(),
                        record.firstSequence(),
                        record.frozenRoot(),
                        record.functionVersion(),
                        com.flashcoupon.api.draw.PublicDraw.Beacon.of(record));
            }
            return new Draw(
                    state.draw().state() == 1 ? DrawState.OPEN : DrawState.DRAWING,
                    record.commitment(),
                    record.drawAt(),
                    state.draw().entrants(),
                    state.draw().places(),
                    null,
                    null,
                    null,
                    null,
                    null,
                    record.frozenRoot(),
                    null,
                    null);
        }
    }

    enum DrawState {
        OPEN,
        DRAWING,
        MADE
    }

    /**
     * The rates behind the issuance and the waiting estimates (docs/http-api.md): the operator's, the drainer's
     * effective rate (below it while the database cannot keep up, with the reason), the rate measured from the
     * outcomes, the one estimates assume now, the pipeline's transit (publication to outcome) they count, and the
     * estimate's measured error on the instance that answers.
     */
    record Pace(
            int configuredRatePerSecond,
            double effectiveRatePerSecond,
            String rateCutReason,
            double measuredRatePerSecond,
            double assumedRatePerSecond,
            long transitMillis,
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
        return of(coupon, state, IssuePace.Snapshot.NONE, null);
    }

    /** {@code draw}: the event's draw as MySQL records it; null for a FIFO event (or one drawn before draws had rows). */
    static AdminCouponView of(Coupon coupon, CouponState state, IssuePace.Snapshot seen, DrawRecord draw) {
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
                coupon.drawAt(),
                draw == null ? null : Draw.of(draw, state),
                coupon.announceAt(),
                null,
                null,
                coupon.stockShards());
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
                known ? seen.transitMillis() : 0,
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
