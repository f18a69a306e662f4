package com.flashcoupon.api.drain;

import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * This instance's drain lease on each coupon, in Redis: one api instance publishes a coupon at a time. The lease is
 * taken or renewed by the claim (drain_claim.lua), renewed while Kafka acknowledges a batch and by the cursor's
 * advance, and given back as soon as this instance cannot publish (its batch failed, or Kafka is down for it), so that
 * another instance takes the coupon over on its next tick instead of after the time-to-live.
 */
final class DrainLease {

    /**
     * drain_claim.lua, with draw.lua in front: the tick closes a RANDOMIZED_START event's window once it is over, and
     * publishes nothing of the coupon until its draw is made.
     */
    @SuppressWarnings("rawtypes")
    static final RedisScript<List> CLAIM =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/drain_claim.lua")), List.class);

    /** The same claim, on the connection whose {@code WAIT} then covers it (see {@link #claim}). */
    private static final ScriptConnection.Script CLAIM_SCRIPT = ScriptConnection.Script.of(CLAIM.getScriptAsString());

    /** The longest wait for a claim on the replica-waiting path: the command and the replica time-outs are shorter. */
    static final Duration CLAIM_WAIT = Duration.ofSeconds(10);

    private static final RedisScript<Long> ADVANCE =
            RedisScript.of(LuaScripts.text("scripts/drain_advance.lua"), Long.class);

    private static final RedisScript<Long> RENEW =
            RedisScript.of(LuaScripts.text("scripts/drain_renew.lua"), Long.class);

    private static final RedisScript<Long> RELEASE =
            RedisScript.of(LuaScripts.text("scripts/release_lock.lua"), Long.class);

    private final StringRedisTemplate redis;
    private final ScriptConnection scripts;
    private final int minReplicas;
    private final String owner;
    private final String ttl;

    /** Coupons whose lease this instance took and has not given back (it may have lapsed since). */
    private final Set<Long> held = ConcurrentHashMap.newKeySet();

    DrainLease(StringRedisTemplate redis, ScriptConnection scripts, int minReplicas, Duration ttl) {
        this.redis = redis;
        this.scripts = scripts;
        this.minReplicas = minReplicas;
        this.ttl = Long.toString(ttl.toMillis());
        this.owner = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
    }

    /** The keys of drain_claim.lua for one coupon. */
    static List<String> claimKeys(long couponId) {
        return List.of(
                CouponKeys.lease(couponId),
                CouponKeys.meta(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.cursor(couponId),
                CouponKeys.done(couponId),
                CouponKeys.stats(couponId),
                CouponKeys.seq(couponId),
                CouponKeys.draw(couponId));
    }

    /**
     * Runs drain_claim.lua. With {@code coupon.redis.min-replicas}, on the api's own script connection, so that the
     * {@code WAIT} of {@link DrainReplicas} is sent where the claim's write was: it then covers every admission in the
     * queue when the claim ran (a primary replicates its writes in the order it made them), whichever instance wrote
     * them.
     */
    List<?> claim(long couponId) {
        List<?> claim = minReplicas == 0
                ? redis.execute(CLAIM, claimKeys(couponId), owner, ttl)
                : scripts.eval(CLAIM_SCRIPT, claimKeys(couponId).toArray(String[]::new), owner, ttl)
                        .block(CLAIM_WAIT);
        if (claim != null && !claim.isEmpty() && claim.get(0) instanceof Number owned && owned.longValue() == 1) {
            held.add(couponId);
        }
        return claim;
    }

    /** Extends the lease while a batch waits; false when it lapsed or another instance holds it. */
    boolean renew(long couponId) {
        Long renewed = redis.execute(RENEW, List.of(CouponKeys.lease(couponId)), owner, ttl);
        return renewed != null && renewed == 1;
    }

    /**
     * Moves the cursor just past {@code lastMember} (where it stands now) and renews the lease, only while this
     * instance owns it: a late advance never moves a cursor another instance drains.
     *
     * @return 1 when moved, 0 when the lease was lost, -1 when the member is no longer in the queue
     */
    long advance(long couponId, String lastMember) {
        Long moved = redis.execute(
                ADVANCE,
                List.of(CouponKeys.lease(couponId), CouponKeys.cursor(couponId), CouponKeys.queue(couponId)),
                owner,
                lastMember,
                ttl);
        return moved == null ? 0 : moved;
    }

    /** Gives the lease back if this instance still holds it; never fails (it lapses by itself otherwise). */
    void release(long couponId) {
        held.remove(couponId);
        try {
            redis.execute(RELEASE, List.of(CouponKeys.lease(couponId)), owner);
        } catch (RuntimeException e) {
            // Redis unreachable: the lease lapses after its time-to-live
        }
    }

    /** Gives back every lease this instance holds: it cannot publish now. */
    void releaseAll() {
        Set.copyOf(held).forEach(this::release);
    }

    /** Forgets coupons no longer drained (retired), so the set does not grow with past events. */
    void retainOnly(Set<Long> couponIds) {
        held.retainAll(couponIds);
    }
}
