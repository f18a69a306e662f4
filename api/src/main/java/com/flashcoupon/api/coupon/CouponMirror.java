package com.flashcoupon.api.coupon;

import static com.flashcoupon.api.web.RequestIdFilter.logging;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Keeps what admission needs of a coupon in Redis, copied from MySQL, the system of record. Called after every change
 * an operator makes, and when Redis turns out to have lost a coupon: then the stock floor comes from what MySQL knows
 * was published, so a restored Redis never reopens stock that was handed out. Every snapshot carries the row's
 * version and Redis refuses an older one than it holds, so a change read before an operator's close cannot undo it.
 * A retired event is never mirrored: MySQL answers for it.
 */
@Component
public class CouponMirror {

    private static final Logger log = LoggerFactory.getLogger(CouponMirror.class);
    private static final RedisScript<Long> MIRROR = RedisScript.of(LuaScripts.text("scripts/mirror.lua"), Long.class);
    private static final long RESTORED = 0;
    private static final long STALE = 2;
    private static final long RETIRED = 3;

    private final ReactiveStringRedisTemplate redis;
    private final CouponRepository coupons;
    private final BlockingIo blocking;
    private final RetiredCoupons retired;

    CouponMirror(
            ReactiveStringRedisTemplate redis, CouponRepository coupons, BlockingIo blocking, RetiredCoupons retired) {
        this.redis = redis;
        this.coupons = coupons;
        this.blocking = blocking;
        this.retired = retired;
    }

    /** Copies the coupon into Redis, unless Redis holds a newer version or the event is retired. */
    public Mono<Void> mirror(Coupon coupon) {
        return write(coupon).then();
    }

    /** What mirror.lua answered ({@link #RETIRED} without asking it when the row says so). */
    private Mono<Long> write(Coupon coupon) {
        long id = coupon.id();
        if (coupon.retired()) {
            retired.remember(coupon);
            return Mono.just(RETIRED);
        }
        long decided = (long) coupon.issuedCount() + coupon.failedCount();
        long base = Math.max(coupon.publishedCount(), decided);
        List<String> keys = List.of(
                CouponKeys.meta(id),
                CouponKeys.queue(id),
                CouponKeys.seq(id),
                CouponKeys.cursor(id),
                CouponKeys.retired(id),
                CouponKeys.done(id));
        List<String> args = List.of(
                coupon.name(),
                Integer.toString(coupon.totalQuantity()),
                Long.toString(coupon.openAt().toEpochMilli()),
                Long.toString(coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli()),
                coupon.closedByOperator() ? "1" : "0",
                Integer.toString(coupon.issueRatePerSecond()),
                Long.toString(base),
                Long.toString(coupon.version()),
                Long.toString(decided));
        return redis.execute(MIRROR, keys, args).next().handle(logging(outcome -> {
            if (outcome == RESTORED && base > 0) {
                log.error(
                        "coupon {} was missing from Redis and was restored from MySQL with a stock floor of {}",
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

    /**
     * Mirrors the coupon again from MySQL; empty when MySQL has no such coupon. A retired coupon is returned as MySQL
     * has it and stays out of Redis.
     */
    public Mono<Coupon> restore(long couponId) {
        return find(couponId)
                .flatMap(coupon -> write(coupon)
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
}
