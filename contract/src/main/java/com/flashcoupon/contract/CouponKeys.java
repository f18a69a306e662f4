package com.flashcoupon.contract;

/**
 * Redis keys of one coupon: the one place they are named. Every key of a coupon carries the hash tag {@code {cpn:ID}}
 * so that each script runs on one slot of a Redis Cluster.
 *
 * <ul>
 *   <li>{@code meta} hash: {@code total}, {@code openAt} and {@code closeAt} (epoch ms, 0 = none), {@code closed}
 *       (0/1), {@code rate} (issues per second), {@code base} (admissions known before a Redis loss, see the mirror).
 *   <li>{@code queue} sorted set: member → admission sequence. Capped at {@code total - base} by ZCARD.
 *   <li>{@code seq} counter: the last admission sequence.
 *   <li>{@code cursor}: how many queue entries (by rank) the drainer has published and Kafka acknowledged.
 *   <li>{@code result} hash: member → {@code I:<walletCouponId>} or {@code F:<reason>}, written by the worker.
 *   <li>{@code done} counter: members with a result, incremented once per member.
 *   <li>{@code stats} hash: {@code rejectedSoldOut}, {@code published}.
 *   <li>{@code lease}: the api instance that drains this coupon now.
 * </ul>
 */
public final class CouponKeys {

    /** Set of coupon ids the drainers look at; not hash-tagged, never used inside a coupon's scripts. */
    public static final String DRAIN_INDEX = "cpn:drain";

    /** Prefix of a result value meaning ISSUED; the wallet coupon id follows. */
    public static final String ISSUED_PREFIX = "I:";

    /** Prefix of a result value meaning FAILED; the {@link FailureReason} follows. */
    public static final String FAILED_PREFIX = "F:";

    private CouponKeys() {}

    public static String tag(long couponId) {
        return "{cpn:" + couponId + "}";
    }

    public static String meta(long couponId) {
        return tag(couponId) + ":meta";
    }

    public static String queue(long couponId) {
        return tag(couponId) + ":queue";
    }

    public static String seq(long couponId) {
        return tag(couponId) + ":seq";
    }

    public static String cursor(long couponId) {
        return tag(couponId) + ":cursor";
    }

    public static String result(long couponId) {
        return tag(couponId) + ":result";
    }

    public static String done(long couponId) {
        return tag(couponId) + ":done";
    }

    public static String stats(long couponId) {
        return tag(couponId) + ":stats";
    }

    public static String lease(long couponId) {
        return tag(couponId) + ":lease";
    }
}
