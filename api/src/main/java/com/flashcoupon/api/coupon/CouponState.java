package com.flashcoupon.api.coupon;

import com.flashcoupon.db.Coupon;
import java.time.Instant;

/**
 * A coupon as Redis sees it now: its settings (mirrored from MySQL) and its admission counters.
 *
 * @param base admissions that survived a Redis loss only as a count (0 normally)
 * @param queued entries in the admission queue
 * @param cursor queue entries published to Kafka
 * @param done members with a result (issued or failed); after a restore, counted from what MySQL had decided
 * @param held places of a RANDOMIZED_START event's closed window that its draw has not written into the queue yet
 *     (admitted: they count in the stock cap)
 * @param draw the event's draw as Redis sees it ({@link Draw#NONE} for a FIFO event)
 * @param shards the event's stock shards (queued, cursor, done and rejectedSoldOut are then every shard's together)
 */
public record CouponState(
        long id,
        String name,
        long total,
        long openAt,
        long closeAt,
        boolean closed,
        int rate,
        long base,
        long queued,
        long cursor,
        long done,
        long rejectedSoldOut,
        long now,
        long held,
        Draw draw,
        long announceAt,
        int shards) {

    /**
     * A RANDOMIZED_START event's draw: its state (0 nothing to wait for: made, or a FIFO event; 1 the window is open; 2
     * the window is over and the draw is not made yet), the entrants and the places it would give (so far, or as the
     * window froze them).
     */
    public record Draw(int state, long entrants, long places) {

        public static final Draw NONE = new Draw(0, 0, 0);

        /** The draw is not made yet: its entrants have no outcome, though none of them is in the queue. */
        public boolean pending() {
            return state != 0;
        }
    }

    public enum Status {
        SCHEDULED,
        OPEN,
        SOLD_OUT,
        CLOSED
    }

    /** A retired event as MySQL keeps it: final figures, nothing queued, nothing waiting. */
    public static CouponState retired(Coupon coupon, long now) {
        long admitted = coupon.admittedCount() == null ? coupon.publishedCount() : coupon.admittedCount();
        return new CouponState(
                coupon.id(),
                coupon.name(),
                coupon.totalQuantity(),
                coupon.openAt().toEpochMilli(),
                coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli(),
                coupon.closedByOperator(),
                coupon.issueRatePerSecond(),
                admitted,
                0,
                0,
                (long) coupon.issuedCount() + coupon.failedCount(),
                coupon.rejectedSoldOutCount() == null ? 0 : coupon.rejectedSoldOutCount(),
                now,
                0,
                Draw.NONE,
                coupon.announceAt() == null ? 0 : coupon.announceAt().toEpochMilli(),
                coupon.stockShards());
    }

    /** Whether members may see the event at the time this state was read (its announceAt passed, or it has none). */
    public boolean announced() {
        return now >= announceAt;
    }

    public long admitted() {
        return base + queued + held;
    }

    public long published() {
        return base + cursor;
    }

    /** What admission can still accept. */
    public long remaining() {
        return Math.max(0, total - admitted());
    }

    /** Admitted requests without a result yet ({@code done} counts from what MySQL had decided when restored). */
    public long waiting() {
        return Math.max(0, admitted() - done);
    }

    public Status status() {
        if (closed || (closeAt > 0 && now >= closeAt)) {
            return Status.CLOSED;
        }
        if (now < openAt) {
            return Status.SCHEDULED;
        }
        return remaining() == 0 ? Status.SOLD_OUT : Status.OPEN;
    }

    public Instant openAtInstant() {
        return Instant.ofEpochMilli(openAt);
    }

    public Instant closeAtInstant() {
        return closeAt > 0 ? Instant.ofEpochMilli(closeAt) : null;
    }

    /** The same state with a draw's counts and the places it holds, as every shard counts them (CouponStates). */
    CouponState withDraw(long heldPlaces, Draw counted) {
        return new CouponState(
                id,
                name,
                total,
                openAt,
                closeAt,
                closed,
                rate,
                base,
                queued,
                cursor,
                done,
                rejectedSoldOut,
                now,
                heldPlaces,
                counted,
                announceAt,
                shards);
    }
}
