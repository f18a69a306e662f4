package com.flashcoupon.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The status resource of one member's request (docs/http-api.md): {@code position} counts the admitted requests of the coupon
 * not yet issued that are ahead of this one, plus one; {@code failureReason} appears only when FAILED. While WAITING,
 * {@code assumedRatePerSecond} says which rate the estimate assumed and {@code estimatedWaitRange} how far it may be
 * off (the wait at the fastest and the slowest rate the api deems likely); both are absent otherwise. {@code drawAt}
 * appears while the member waits for a RANDOMIZED_START event's draw: {@code position} is provisional until then.
 *
 * <p>{@code estimatedWaitSeconds} is the estimate rounded to the nearest second (at least 1 while waiting), {@code
 * estimatedWaitMillis} the same estimate unrounded: whole seconds alone cannot be within 10% of a wait shorter than five
 * seconds, so an app that counts down shows the precise one.
 */
public record IssueStatus(
        long couponId,
        String memberId,
        State status,
        Long position,
        Long estimatedWaitSeconds,
        Long walletCouponId,
        @JsonInclude(JsonInclude.Include.NON_NULL) String failureReason,
        @JsonInclude(JsonInclude.Include.NON_NULL) Double assumedRatePerSecond,
        @JsonInclude(JsonInclude.Include.NON_NULL) WaitRange estimatedWaitRange,
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant drawAt,
        @JsonInclude(JsonInclude.Include.NON_NULL) Long estimatedWaitMillis,
        @JsonInclude(JsonInclude.Include.NON_NULL) DrawOdds draw,
        @JsonInclude(JsonInclude.Include.NON_NULL) Receipt receipt) {

    /** A status without an entry receipt. */
    public IssueStatus(
            long couponId,
            String memberId,
            State status,
            Long position,
            Long estimatedWaitSeconds,
            Long walletCouponId,
            String failureReason,
            Double assumedRatePerSecond,
            WaitRange estimatedWaitRange,
            Instant drawAt,
            Long estimatedWaitMillis,
            DrawOdds draw) {
        this(
                couponId,
                memberId,
                status,
                position,
                estimatedWaitSeconds,
                walletCouponId,
                failureReason,
                assumedRatePerSecond,
                estimatedWaitRange,
                drawAt,
                estimatedWaitMillis,
                draw,
                null);
    }

    /**
     * A signed entry receipt (docs/http-api.md, "Entry receipts"): the service key {@code keyId} signed (Ed25519,
     * {@code signature} base64url without padding) the UTF-8 bytes of {@code "flash-coupon entry receipt v1\n" + couponId
     * + "\n" + pseudonym + "\n" + enteredBy + "\n"}: the member, by pseudonym, was among the draw's entrants at
     * {@code enteredBy}.
     */
    public record Receipt(long couponId, String pseudonym, String enteredBy, String keyId, String signature) {}

    /** This status with its entry receipt. */
    public IssueStatus withReceipt(Receipt signed) {
        return new IssueStatus(
                couponId,
                memberId,
                status,
                position,
                estimatedWaitSeconds,
                walletCouponId,
                failureReason,
                assumedRatePerSecond,
                estimatedWaitRange,
                drawAt,
                estimatedWaitMillis,
                draw,
                signed);
    }

    public enum State {
        WAITING,
        ISSUED,
        FAILED
    }

    /** The wait at the fastest and at the slowest likely rate, in whole seconds (nearest, at least 1). */
    public record WaitRange(long fromSeconds, long toSeconds) {}

    /**
     * A member's odds in a RANDOMIZED_START event's draw that is not made yet.
     *
     * @param state {@code OPEN} while the window is (more members may enter), {@code DRAWING} once it is closed and the
     *     draw is being made
     * @param entrants the members in the draw so far (once closed: all of them)
     * @param places how many of them the draw would place now: the stock left, at most one per entrant
     * @param chance {@code places / entrants}: the member's chance of a place as things stand
     * @param waitIfPlaced the wait for the coupon if the draw places the member: from place 1 to the last place, at
     *     the rate the estimates assume, counted from now (the time to the draw included)
     */
    public record DrawOdds(
            DrawState state,
            long entrants,
            long places,
            double chance,
            @JsonInclude(JsonInclude.Include.NON_NULL) WaitRange waitIfPlaced,
            @JsonInclude(JsonInclude.Include.NON_NULL) String ticket,
            @JsonInclude(JsonInclude.Include.NON_NULL) String pseudonym,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer place,
            @JsonInclude(JsonInclude.Include.NON_NULL) Boolean leftOut,
            @JsonInclude(JsonInclude.Include.NON_NULL) String record) {

        /** The odds of a draw not made yet. */
        public DrawOdds(DrawState state, long entrants, long places, double chance, WaitRange waitIfPlaced) {
            this(state, entrants, places, chance, waitIfPlaced, null, null, null, null, null);
        }

        /**
         * A member's own line of a made draw (function 2): their ticket and pseudonym, their place or that they were
         * left out, and the path of the draw's public record, where anyone can check the whole draw.
         */
        public static DrawOdds made(
                long entrants, long placed, String ticket, String pseudonym, Integer place, String record) {
            return new DrawOdds(
                    DrawState.MADE,
                    entrants,
                    placed,
                    place == null ? 0.0 : 1.0,
                    null,
                    ticket,
                    pseudonym,
                    place,
                    place == null ? Boolean.TRUE : null,
                    record);
        }
    }

    public enum DrawState {
        OPEN,
        DRAWING,
        MADE
    }

    /** This status with {@code draw} set to the member's line of a made draw. */
    public IssueStatus withDraw(DrawOdds made) {
        return new IssueStatus(
                couponId,
                memberId,
                status,
                position,
                estimatedWaitSeconds,
                walletCouponId,
                failureReason,
                assumedRatePerSecond,
                estimatedWaitRange,
                drawAt,
                estimatedWaitMillis,
                made,
                receipt);
    }

    /**
     * A waiting request, estimated from the configured rate alone. Issuance follows admission order, so the requests
     * ahead and not yet done are about {@code sequence - done - 1}.
     */
    public static IssueStatus waiting(long couponId, String memberId, long sequence, long done, int rate) {
        return waiting(couponId, memberId, sequence, done, IssuePace.Pace.configured(rate));
    }

    /** A waiting request, estimated from the rates the api measured and assumes ({@link IssuePace}). */
    public static IssueStatus waiting(long couponId, String memberId, long sequence, long done, IssuePace.Pace pace) {
        long position = Math.max(1, sequence - done);
        if (pace.assumed() <= 0) {
            return new IssueStatus(
                    couponId,
                    memberId,
                    State.WAITING,
                    position,
                    seconds(position * 1000),
                    null,
                    null,
                    null,
                    null,
                    null,
                    null,
                    null);
        }
        long millis = pace.waitMillis(sequence, done, pace.assumed());
        long wait = seconds(millis);
        var range = new WaitRange(
                Math.min(wait, seconds(pace.waitMillis(sequence, done, pace.fast()))),
                Math.max(wait, seconds(pace.waitMillis(sequence, done, pace.slow()))));
        double assumed = Math.round(pace.assumed() * 10) / 10.0;
        return new IssueStatus(
                couponId, memberId, State.WAITING, position, wait, null, null, assumed, range, null, millis, null);
    }

    /** Whole seconds, to the nearest, and at least 1: a member still waiting is not told 0. */
    private static long seconds(long millis) {
        return Math.max(1, Math.round(millis / 1000.0));
    }

    public static IssueStatus issued(long couponId, String memberId, long walletCouponId) {
        return new IssueStatus(
                couponId, memberId, State.ISSUED, null, null, walletCouponId, null, null, null, null, null, null);
    }

    public static IssueStatus failed(long couponId, String memberId, String reason) {
        return new IssueStatus(
                couponId, memberId, State.FAILED, null, null, null, reason, null, null, null, null, null);
    }

    /**
     * A member of a RANDOMIZED_START event's draw that is not made yet: no place and no wait (nobody has one before the
     * draw), but the odds as they stand and the wait if the draw places them, labelled as such.
     */
    public static IssueStatus inDraw(
            long couponId,
            String memberId,
            long entrants,
            long places,
            boolean drawing,
            Instant drawAt,
            long nowMillis,
            IssuePace.Pace pace) {
        long toDraw = Math.max(0, drawAt.toEpochMilli() - nowMillis);
        long lastPlace = Math.max(1, Math.min(places, entrants));
        double rate = pace.assumed();
        var waitIfPlaced = new WaitRange(
                seconds(toDraw + IssuePace.Pace.millisAt(1, rate)),
                seconds(toDraw + IssuePace.Pace.millisAt(lastPlace, rate)));
        double chance = entrants <= 0 ? 1 : Math.min(1, Math.round(places * 10_000.0 / entrants) / 10_000.0);
        var odds = new DrawOdds(drawing ? DrawState.DRAWING : DrawState.OPEN, entrants, places, chance, waitIfPlaced);
        Double assumed = rate > 0 ? Math.round(rate * 10) / 10.0 : null;
        return new IssueStatus(
                couponId, memberId, State.WAITING, null, null, null, null, assumed, null, drawAt, null, odds);
    }

    public boolean isFinal() {
        return status != State.WAITING;
    }
}
