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
        @JsonInclude(JsonInclude.Include.NON_NULL) Long estimatedWaitMillis) {

    public enum State {
        WAITING,
        ISSUED,
        FAILED
    }

    /** The wait at the fastest and at the slowest likely rate, in whole seconds (nearest, at least 1). */
    public record WaitRange(long fromSeconds, long toSeconds) {}

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
        return waiting(couponId, memberId, position, 0, pace, null);
    }

    /** Waiting at {@code position}, {@code beforeMillis} before the line starts to move (a draw), else 0. */
    private static IssueStatus waiting(
            long couponId, String memberId, long position, long beforeMillis, IssuePace.Pace pace, Instant drawAt) {
        if (pace.assumed() <= 0) {
            return new IssueStatus(
                    couponId,
                    memberId,
                    State.WAITING,
                    position,
                    seconds(beforeMillis + position * 1000),
                    null,
                    null,
                    null,
                    null,
                    drawAt,
                    null);
        }
        long millis = beforeMillis + millis(position, pace.assumed());
        long wait = seconds(millis);
        var range = new WaitRange(
                Math.min(wait, seconds(beforeMillis + millis(position, pace.fast()))),
                Math.max(wait, seconds(beforeMillis + millis(position, pace.slow()))));
        double assumed = Math.round(pace.assumed() * 10) / 10.0;
        return new IssueStatus(
                couponId, memberId, State.WAITING, position, wait, null, null, assumed, range, drawAt, millis);
    }

    private static long millis(long position, double rate) {
        return rate > 0 ? Math.round(position * 1000 / rate) : position * 1000;
    }

    /** Whole seconds, to the nearest, and at least 1: a member still waiting is not told 0. */
    private static long seconds(long millis) {
        return Math.max(1, Math.round(millis / 1000.0));
    }

    public static IssueStatus issued(long couponId, String memberId, long walletCouponId) {
        return new IssueStatus(
                couponId, memberId, State.ISSUED, null, null, walletCouponId, null, null, null, null, null);
    }

    public static IssueStatus failed(long couponId, String memberId, String reason) {
        return new IssueStatus(couponId, memberId, State.FAILED, null, null, null, reason, null, null, null, null);
    }

    /**
     * A member of a RANDOMIZED_START event's draw, before it took place: {@code place} is where the tickets drawn so far
     * put them (later members may draw ahead), the wait is the time to the draw plus that place at the assumed rate.
     */
    public static IssueStatus inDraw(
            long couponId, String memberId, long place, Instant drawAt, long nowMillis, IssuePace.Pace pace) {
        return waiting(couponId, memberId, place, Math.max(0, drawAt.toEpochMilli() - nowMillis), pace, drawAt);
    }

    public boolean isFinal() {
        return status != State.WAITING;
    }
}
