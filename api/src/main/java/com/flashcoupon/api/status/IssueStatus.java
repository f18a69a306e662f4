package com.flashcoupon.api.status;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Instant;

/**
 * The status resource of one member's request (docs/http-api.md): {@code position} counts the admitted requests of the coupon
 * not yet issued that are ahead of this one, plus one; {@code failureReason} appears only when FAILED. While WAITING,
 * {@code assumedRatePerSecond} says which rate the estimate assumed and {@code estimatedWaitRange} how far it may be
 * off (the wait at the fastest and the slowest rate the api deems likely); both are absent otherwise. {@code drawAt}
 * appears while the member waits for a RANDOMIZED_START event's draw: {@code position} is provisional until then.
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
        @JsonInclude(JsonInclude.Include.NON_NULL) Instant drawAt) {

    public enum State {
        WAITING,
        ISSUED,
        FAILED
    }

    /** The wait at the fastest and at the slowest likely rate, in whole seconds rounded up. */
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
        if (pace.assumed() <= 0) {
            return new IssueStatus(couponId, memberId, State.WAITING, position, position, null, null, null, null, null);
        }
        long wait = seconds(position, pace.assumed());
        var range = new WaitRange(
                Math.min(wait, seconds(position, pace.fast())), Math.max(wait, seconds(position, pace.slow())));
        double assumed = Math.round(pace.assumed() * 10) / 10.0;
        return new IssueStatus(couponId, memberId, State.WAITING, position, wait, null, null, assumed, range, null);
    }

    private static long seconds(long position, double rate) {
        return rate > 0 ? (long) Math.ceil(position / rate - 1e-9) : position;
    }

    public static IssueStatus issued(long couponId, String memberId, long walletCouponId) {
        return new IssueStatus(couponId, memberId, State.ISSUED, null, null, walletCouponId, null, null, null, null);
    }

    public static IssueStatus failed(long couponId, String memberId, String reason) {
        return new IssueStatus(couponId, memberId, State.FAILED, null, null, null, reason, null, null, null);
    }

    /**
     * A member of a RANDOMIZED_START event's draw, before it took place: {@code place} is where the tickets drawn so far
     * put them (later members may draw ahead), the wait is the time to the draw plus that place at the assumed rate.
     */
    public static IssueStatus inDraw(
            long couponId, String memberId, long place, Instant drawAt, long nowMillis, IssuePace.Pace pace) {
        long toDraw = Math.max(0, (long) Math.ceil((drawAt.toEpochMilli() - nowMillis) / 1000.0));
        if (pace.assumed() <= 0) {
            return new IssueStatus(
                    couponId, memberId, State.WAITING, place, toDraw + place, null, null, null, null, drawAt);
        }
        long wait = toDraw + seconds(place, pace.assumed());
        var range = new WaitRange(
                Math.min(wait, toDraw + seconds(place, pace.fast())),
                Math.max(wait, toDraw + seconds(place, pace.slow())));
        double assumed = Math.round(pace.assumed() * 10) / 10.0;
        return new IssueStatus(couponId, memberId, State.WAITING, place, wait, null, null, assumed, range, drawAt);
    }

    public boolean isFinal() {
        return status != State.WAITING;
    }
}
