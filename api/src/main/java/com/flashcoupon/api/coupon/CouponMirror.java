package com.flashcoupon.api.coupon;

import static com.flashcoupon.api.web.RequestIdFilter.logging;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.gatestate.GateMirror;
import com.flashcoupon.api.shard.ShardMirror;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Keeps what admission needs of a coupon in Redis, copied from MySQL, the system of record. Called after every change
 * an operator makes, and when Redis turns out to have lost a coupon: then every member MySQL knows goes back into the
 * queue first ({@link MemberRestore}), and the stock floor comes from what MySQL knows was published, so a restored
 * Redis neither admits a served member twice nor reopens stock that was handed out. Every snapshot carries the row's
 * version and Redis refuses an older one than it holds, so a change read before an operator's close cannot undo it.
 * A retired event is never mirrored: MySQL answers for it.
 */
@Component
public class CouponMirror {

    private static final Logger log = LoggerFactory.getLogger(CouponMirror.class);
    /**
     * mirror.lua with the gate's settings' writer and the restored cursor's search in front: one text for the api and
     * the tests that run it.
     */
    public static final String MIRROR_TEXT = LuaScripts.text("scripts/gate_settings.lua")
            + LuaScripts.text("scripts/decided_cursor.lua")
            + LuaScripts.text("scripts/mirror.lua");

    private static final RedisScript<Long> MIRROR = RedisScript.of(MIRROR_TEXT, Long.class);
    private static final long RESTORED = 0;
    private static final long UPDATED = 1;
    private static final long STALE = 2;
    private static final long RETIRED = 3;
    private static final long RESTORING = 4;
    private static final long NEEDS_RESTORE = 5;

    /** Not from the script: another caller restored the coupon while this one waited (the meta is as MySQL has it). */
    private static final long AWAITED = 6;

    /** The attempts of a member's own request: no retries of its own, it waits for the other restore to end. */
    private static final int AWAIT_SHARED = -1;

    /** How often, and how far apart, an operator's change asks again while another caller restores the coupon. */
    private static final int WAIT_ATTEMPTS = 100;

    private static final Duration WAIT_STEP = Duration.ofMillis(200);

    /**
     * How long a member's own request (admission, status, coupon view) waits for another caller's restore of the
     * coupon before its 503, and how often it looks: one poll of the lock per coupon on this instance, shared by every
     * request that waits, so a crowd arriving during a restore costs Redis one small read per step, MySQL nothing.
     */
    private static final Duration RESTORE_WAIT = Duration.ofSeconds(5);

    private static final Duration RESTORE_POLL = Duration.ofMillis(50);

    private final Map<Long, Mono<Boolean>> restoresAwaited = new ConcurrentHashMap<>();

    private final ReactiveStringRedisTemplate redis;
    private final CouponRepository coupons;
    private final BlockingIo blocking;
    private final RetiredCoupons retired;
    private final MemberRestore members;
    private final GateMirror gates;
    private final UnknownCoupons unknown;
    private final ShardMirror shards;

    CouponMirror(
            ReactiveStringRedisTemplate redis,
            CouponRepository coupons,
            BlockingIo blocking,
            RetiredCoupons retired,
            MemberRestore members,
            UnknownCoupons unknown,
            GateMirror gates,
            ShardMirror shards) {
        this.shards = shards;
        this.unknown = unknown;
        this.gates = gates;
        this.redis = redis;
        this.coupons = coupons;
        this.blocking = blocking;
        this.retired = retired;
        this.members = members;
    }

    /**
     * Copies the coupon into Redis, unless Redis holds a newer version or the event is retired. An operator's change
     * must land: while another caller restores the coupon, it waits for the restore to end (up to 20 s, then 503).
     */
    public Mono<Void> mirror(Coupon coupon) {
        unknown.forget(coupon.id());
        return write(coupon, WAIT_ATTEMPTS).then();
    }

    /**
     * What mirror.lua answered ({@link #RETIRED} without asking it when the row says so). When Redis lost the coupon
     * and MySQL knows members of it, they are restored first, by whoever takes the lock; another caller's restore is
     * waited for {@code attempts} times, then answered with 503 (the member asks again shortly); a member's own request
     * ({@link #AWAIT_SHARED}) waits for it once, up to {@link #RESTORE_WAIT}.
     */
    private Mono<Long> write(Coupon coupon, int attempts) {
        return script(coupon, "", attempts).flatMap(outcome -> {
            if (outcome == NEEDS_RESTORE) {
                return restoreMembers(coupon.id(), attempts);
            }
            if (outcome == RESTORING) {
                return waitForRestore(coupon.id(), attempts);
            }
            return Mono.just(outcome);
        });
    }

    private Mono<Long> waitForRestore(long couponId, int attempts) {
        if (attempts == AWAIT_SHARED) {
            return restoreEnded(couponId)
                    .flatMap(ended -> ended ? Mono.just(AWAITED) : Mono.error(() -> ApiException.restoring(couponId)));
        }
        if (attempts <= 0) {
            return Mono.error(() -> ApiException.restoring(couponId));
        }
        return Mono.delay(WAIT_STEP)
                .then(find(couponId))
                .flatMap(coupon -> write(coupon, attempts - 1))
                .switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)));
    }

    /**
     * True once no caller holds the coupon's restore lock, false when one still does after {@link #RESTORE_WAIT}. The
     * script that runs next decides: a restore that failed gave the lock back, and the next caller restores again.
     */
    private Mono<Boolean> restoreEnded(long couponId) {
        return restoresAwaited.computeIfAbsent(
                couponId,
                id -> Mono.defer(() -> redis.hasKey(CouponKeys.restoring(id)))
                        .filter(held -> !held)
                        .repeatWhenEmpty(empty -> empty.delayElements(RESTORE_POLL))
                        .map(released -> true)
                        .timeout(RESTORE_WAIT, Mono.just(false))
                        .doFinally(signal -> restoresAwaited.remove(id))
                        .cache());
    }

    /**
     * Takes the lock, writes the members back, then mirrors the row as it is now (an operator's change made meanwhile
     * is in it) with the lock's token: only then does the meta exist and admission run. A failure gives the lock
     * back, so the next request restores again.
     */
    private Mono<Long> restoreMembers(long couponId, int attempts) {
        return members.lock(couponId)
                .flatMap(token -> find(couponId)
                        .flatMap(coupon -> members.restore(couponId, coupon.stockShards(), token))
                        .then(find(couponId))
                        .flatMap(coupon -> script(coupon, token, attempts))
                        .flatMap(outcome -> outcome == RESTORING
                                ? Mono.<Long>error(new MemberRestore.LockLost(couponId))
                                : Mono.just(outcome))
                        .onErrorResume(error -> members.release(couponId, token).then(Mono.error(error))))
                .switchIfEmpty(Mono.defer(() -> waitForRestore(couponId, attempts)))
                .onErrorMap(MemberRestore.LockLost.class, lost -> ApiException.restoring(couponId));
    }

    /** The keys mirror.lua takes, in its order. */
    public static List<String> keys(long couponId) {
        return List.of(
                CouponKeys.meta(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.seq(couponId),
                CouponKeys.cursor(couponId),
                CouponKeys.retired(couponId),
                CouponKeys.done(couponId),
                CouponKeys.result(couponId),
                CouponKeys.restoring(couponId));
    }

    /**
     * One call of mirror.lua with the caller's restore token ('' for none). The gate's list goes first; a member's own
     * request ({@link #AWAIT_SHARED}) waits for another caller's load of it as for a restore ({@link #RESTORE_WAIT}).
     */
    private Mono<Long> script(Coupon coupon, String token, int attempts) {
        long id = coupon.id();
        if (coupon.retired()) {
            retired.remember(coupon);
            return Mono.just(RETIRED);
        }
        long decided = (long) coupon.issuedCount() + coupon.failedCount();
        long base = Math.max(coupon.publishedCount(), decided);
        // anything MySQL knows of its admissions makes a lost coupon go through the restore (members, unknown count)
        long known = Math.max(base, coupon.admittedSeenCount());
        List<String> keys = keys(id);
        // 0 no draw recorded, 1 recorded in MySQL, 2 also written into Redis (CouponRepository#drawStep)
        Mono<Integer> drawStep = coupon.drawAt() == null ? Mono.just(0) : blocking.call(() -> coupons.drawStep(id));
        // the gate (issue 26): its list is in Redis before the meta is written; its settings are ARGV[14]
        return gates.prepare(
                        id, coupon.stockShards(), attempts == AWAIT_SHARED ? RESTORE_WAIT : GateMirror.OPERATOR_WAIT)
                .zipWith(drawStep)
                // a recorded draw names the members it placed: a lost event with one is restored, never made anew
                .flatMap(prepared -> {
                    boolean drawn = prepared.getT2() >= 1;
                    boolean written = prepared.getT2() == 2;
                    return redis.execute(
                                    MIRROR,
                                    keys,
                                    arguments(
                                            coupon,
                                            base,
                                            drawn ? Math.max(known, 1) : known,
                                            token,
                                            drawn,
                                            prepared.getT1()))
                            .next()
                            // an event of more than one shard: its stock dealt, and its settings on every shard
                            .flatMap(outcome -> outcome == RESTORED || outcome == UPDATED
                                    ? shards.deal(
                                                    coupon,
                                                    prepared.getT1(),
                                                    lost -> members.putBack(id, coupon.stockShards(), lost),
                                                    outcome == RESTORED,
                                                    // each shard marked drawn: on a restore, as mirror.lua marks
                                                    // the meta (the placed members put back by it, MemberRestore),
                                                    // and once the draw was written into the shards (a shard lost
                                                    // alone since is dealt again without holding for it)
                                                    written || (outcome == RESTORED && drawn))
                                            .thenReturn(outcome)
                                    : Mono.just(outcome));
                })
                .handle(logging(outcome -> {
                    if (outcome == RESTORED && base > 0) {
                        log.error(
                                "coupon {} was missing from Redis and was restored from MySQL: {} admissions published before",
                                id,
                                base);
                    } else if (outcome == STALE) {
                        log.info(
                                "coupon {}: Redis holds a newer version than {}; this snapshot was not mirrored",
                                id,
                                coupon.version());
                    }
                }));
    }

    /** mirror.lua's ARGV, in its order. */
    private static List<String> arguments(
            Coupon coupon, long base, long known, String token, boolean drawn, String gate) {
        return List.of(
                coupon.name(),
                Integer.toString(coupon.totalQuantity()),
                Long.toString(coupon.openAt().toEpochMilli()),
                Long.toString(coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli()),
                coupon.closedByOperator() ? "1" : "0",
                Integer.toString(coupon.issueRatePerSecond()),
                Long.toString(base),
                Long.toString(coupon.version()),
                Long.toString(known),
                token,
                Long.toString(coupon.drawAt() == null ? 0 : coupon.drawAt().toEpochMilli()),
                drawn ? "1" : "0",
                Long.toString(
                        coupon.announceAt() == null ? 0 : coupon.announceAt().toEpochMilli()),
                gate,
                Integer.toString(coupon.stockShards()));
    }

    /**
     * Mirrors the coupon again from MySQL; empty when MySQL has no such coupon. A retired coupon is returned as MySQL
     * has it and stays out of Redis.
     */
    public Mono<Coupon> restore(long couponId) {
        return find(couponId)
                .flatMap(coupon -> write(coupon, AWAIT_SHARED)
                        .flatMap(outcome -> outcome == RETIRED && !coupon.retired()
                                // retired between our read of the row and the script: the row as it is now says so
                                ? find(couponId).doOnNext(retired::remember)
                                : Mono.just(coupon)));
    }

    private Mono<Coupon> find(long couponId) {
        return blocking.call(() -> coupons.findById(couponId)).flatMap(Mono::justOrEmpty);
    }

    /** Mirrors the coupon again or fails with 404 when it does not exist. */
    public Mono<Coupon> restoreOrNotFound(long couponId) {
        return restore(couponId).switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)));
    }

    /**
     * A member's request about a coupon Redis does not hold: {@code charge} (the member's and the address's overall
     * allowance) is paid first, before MySQL is asked, since the id may be one of any number that do not exist; an id
     * MySQL said it does not know is answered 404 for a few seconds without asking again ({@link UnknownCoupons}).
     */
    public Mono<Coupon> restoreOrNotFound(long couponId, Mono<Void> charge) {
        return charge.then(Mono.defer(() -> unknown.isUnknown(couponId)
                ? Mono.<Coupon>error(ApiException.couponNotFound(couponId))
                : restore(couponId).switchIfEmpty(Mono.error(() -> {
                    unknown.remember(couponId);
                    return ApiException.couponNotFound(couponId);
                }))));
    }
}
