package com.flashcoupon.api.drain;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * How many records each coupon may publish now, so that a coupon drains at its {@code issueRatePerSecond}: a token
 * bucket per coupon that fills at the rate and holds what the time since the coupon's last turn is worth, at least two
 * ticks' worth and at most {@link #MAX_CARRY_NANOS one second's}, so a pause never turns into more than a second's burst.
 *
 * <p>Not one tick's worth: the tick is a fixed delay after the last one's work, so turns come a tick plus that work
 * apart (200 ms plus 20 to 40 ms on a busy machine, plus hundreds of milliseconds when Redis fsyncs every write). A
 * bucket of one tick's worth dropped what filled in that extra time: a coupon at 100/s drained at 85/s, at 53/s on a
 * Redis with {@code appendfsync always}, and every waiting estimate made from the rate was that much short. Plain
 * Java, one instance per drainer thread.
 */
final class DrainPacer {

    /** The most a coupon carries over from a pause or a slow turn: one second's worth of its rate. */
    static final long MAX_CARRY_NANOS = 1_000_000_000L;

    private final long tickNanos;
    private final Map<Long, Bucket> buckets = new HashMap<>();

    DrainPacer(long tickNanos) {
        this.tickNanos = tickNanos;
    }

    /** Tokens available now for this coupon, at most {@code pending}. Call {@link #spend} for what was published. */
    long available(long couponId, double ratePerSecond, long pending, long nowNanos) {
        Bucket bucket = buckets.computeIfAbsent(couponId, id -> new Bucket(nowNanos, oneTick(ratePerSecond)));
        long elapsed = Math.max(0, nowNanos - bucket.lastNanos);
        long carry = Math.max(2 * tickNanos, Math.min(elapsed, MAX_CARRY_NANOS));
        double capacity = Math.max(1.0, ratePerSecond * (carry / 1e9));
        bucket.tokens = Math.min(capacity, bucket.tokens + ratePerSecond * (elapsed / 1e9));
        bucket.lastNanos = nowNanos;
        return Math.min(pending, (long) Math.floor(bucket.tokens));
    }

    void spend(long couponId, long published) {
        Bucket bucket = buckets.get(couponId);
        if (bucket != null) {
            bucket.tokens = Math.max(0, bucket.tokens - published);
        }
    }

    /** Drops the buckets of events no longer drained (retired), so the pacer does not grow with past events. */
    void retainOnly(Collection<Long> couponIds) {
        buckets.keySet().retainAll(Set.copyOf(couponIds));
    }

    /** One tick's worth, and at least one record so that a rate below one per tick still drains. */
    private double oneTick(double ratePerSecond) {
        return Math.max(1.0, ratePerSecond * (tickNanos / 1e9));
    }

    private static final class Bucket {
        long lastNanos;
        double tokens;

        Bucket(long lastNanos, double tokens) {
            this.lastNanos = lastNanos;
            this.tokens = tokens;
        }
    }
}
