package com.flashcoupon.contract;

import java.util.List;

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
 *   <li>{@code restoring}: the lock of a restore from MySQL after a Redis loss (a token, expiring), held while the
 *       members MySQL knows go back into the queue and taken over when its holder died.
 *   <li>{@code retired}: set for a minute ({@code coupon.retention.mark-ttl}) when the event is retired and its other keys removed, so that a restore that
 *       read MySQL just before the retirement cannot bring the event back into Redis.
 * </ul>
 *
 * There is no key listing the coupons: which events still have state in Redis is a question for MySQL (the coupon
 * rows not yet retired), so that nothing here needs a key outside a coupon's slot or a scan of the keyspace.
 */
public final class CouponKeys {

    /** Prefix of a result value meaning ISSUED; the wallet coupon id follows. */
    public static final String ISSUED_PREFIX = "I:";

    /** Prefix of a result value meaning FAILED; the {@link FailureReason} follows. */
    public static final String FAILED_PREFIX = "F:";

    /**
     * The first of the coupon ids reserved for warm-ups, far above any event's (MySQL's ids count up from 1): each api
     * instance warms its request path up on an id of its own drawn from {@code [WARM_UP_FIRST, Long.MAX_VALUE]}, in
     * Redis alone, before it reports ready, and removes its keys after. Instances that start together (a rollout, a
     * scale-up) once shared one id, and the first to finish deleted the others' coupon under them. No drainer or
     * worker ever sees these ids: events come from MySQL.
     */
    public static final long WARM_UP_FIRST = Long.MAX_VALUE - (1L << 40) + 1;

    /** Whether the id is one of the warm-ups' ({@link #WARM_UP_FIRST}). */
    public static boolean isWarmUp(long couponId) {
        return couponId >= WARM_UP_FIRST;
    }

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

    public static String restoring(long couponId) {
        return tag(couponId) + ":restoring";
    }

    public static String retired(long couponId) {
        return tag(couponId) + ":retired";
    }

    /**
     * The draw of a {@code RANDOMIZED_START} event: the members who asked within its window (a sorted set, every score
     * 0, so that it keeps them in the byte order of their ids: the order the draw's digest is taken in).
     */
    public static String draw(long couponId) {
        return tag(couponId) + ":draw";
    }

    /** The lease of the api instance making a {@code RANDOMIZED_START} event's draw (its token, expiring). */
    public static String drawLease(long couponId) {
        return tag(couponId) + ":drawing";
    }

    /** A member's rate limit on this coupon's endpoints (GCRA state), in the coupon's slot. */
    public static String memberLimit(long couponId, String memberId) {
        return tag(couponId) + ":rl:m:" + memberId;
    }

    /** A client address's rate limit on this coupon's endpoints, in the coupon's slot. */
    public static String addressLimit(long couponId, String address) {
        return tag(couponId) + ":rl:a:" + address;
    }

    /**
     * The keys {@code scripts/admit.lua} takes, in its order: meta, queue, seq, done, stats, result, then the two
     * limits' keys ({@link #memberLimit}, {@link #addressLimit}), then the {@link #draw}, then the gate's {@link #eligible} and two {@link #wouldRefuse}. One list for the api, the bench's raw runs and its
     * reference server.
     */
    public static String[] admission(long couponId, String memberLimitKey, String addressLimitKey) {
        return new String[] {
            meta(couponId),
            queue(couponId),
            seq(couponId),
            done(couponId),
            stats(couponId),
            result(couponId),
            memberLimitKey,
            addressLimitKey,
            draw(couponId),
            // the gate (issue 26): eligibility list and COUNT_ONLY's would-be refusals per rule
            eligible(couponId),
            wouldRefuse(couponId, "list"),
            wouldRefuse(couponId, "claims")
        };
    }

    /** Every key that holds the event's state (not the {@link #retired} mark): what retirement removes. */
    public static List<String> state(long couponId) {
        return List.of(
                meta(couponId),
                queue(couponId),
                seq(couponId),
                cursor(couponId),
                result(couponId),
                done(couponId),
                stats(couponId),
                lease(couponId),
                restoring(couponId),
                draw(couponId),
                drawLease(couponId),
                eligible(couponId),
                eligibleVersion(couponId),
                eligibleLoading(couponId),
                wouldRefuse(couponId, "list"),
                wouldRefuse(couponId, "claims"));
    }

    // ---- the gate (issue 26): who an event is for ----

    /** The members an event with an eligibility list admits (a set), loaded from MySQL ({@link #eligibleVersion}). */
    public static String eligible(long couponId) {
        return tag(couponId) + ":eligible";
    }

    /** Which upload of the list (its MySQL generation) {@link #eligible} holds. */
    public static String eligibleVersion(long couponId) {
        return tag(couponId) + ":eligible:v";
    }

    /** A set being filled by one loader (its token) before it replaces {@link #eligible}; expires if the loader dies. */
    public static String eligibleLoad(long couponId, String token) {
        return tag(couponId) + ":eligible:load:" + token;
    }

    /**
     * The lock of the one loader of {@link #eligible} from MySQL (its token, expiring; renewed page by page): callers
     * that find the list missing wait for its load instead of each loading the whole list.
     */
    public static String eligibleLoading(long couponId) {
        return tag(couponId) + ":eligible:loading";
    }

    /**
     * In {@code COUNT_ONLY} mode, the distinct members one rule ({@code list} or {@code claims}) would have refused: a
     * HyperLogLog (12 KB at most, counts within 1%).
     */
    public static String wouldRefuse(long couponId, String rule) {
        return tag(couponId) + ":wouldRefuse:" + rule;
    }
}
