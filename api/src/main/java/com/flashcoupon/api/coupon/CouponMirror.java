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
 * was published, so a restored Redis never reopens stock that was handed out.
 */
@Component
public class CouponMirror {

    private static final Logger log = LoggerFactory.getLogger(CouponMirror.class);
    private static final RedisScript<Long> MIRROR = RedisScript.of(LuaScripts.text("scripts/mirror.lua"), Long.class);

    private final ReactiveStringRedisTemplate redis;
    private final CouponRepository coupons;
    private final BlockingIo blocking;

    CouponMirror(ReactiveStringRedisTemplate redis, CouponRepository coupons, BlockingIo blocking) {
        this.redis = redis;
        this.coupons = coupons;
        this.blocking = blocking;
    }

    /** Copies the coupon into Redis and lets the drainers see it. */
    public Mono<Void> mirror(Coupon coupon) {
        long id = coupon.id();
        long base = Math.max(coupon.publishedCount(), (long) coupon.issuedCount() + coupon.failedCount());
        List<String> keys =
                List.of(CouponKeys.meta(id), CouponKeys.queue(id), CouponKeys.seq(id), CouponKeys.cursor(id));
        List<String> args = List.of(
                coupon.name(),
                Integer.toString(coupon.totalQuantity()),
                Long.toString(coupon.openAt().toEpochMilli()),
                Long.toString(coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli()),
                coupon.closedByOperator() ? "1" : "0",
                Integer.toString(coupon.issueRatePerSecond()),
                Long.toString(base));
        return redis.execute(MIRROR, keys, args)
                .next()
                .handle(logging(existed -> {
                    if (existed == 0L && base > 0) {
                        log.error(
                                "coupon {} was missing from Redis and was restored from MySQL with a stock floor of {}",
                                id,
                                base);
                    }
                }))
                .then(redis.opsForSet().add(CouponKeys.DRAIN_INDEX, Long.toString(id)))
                .then();
    }

    /** Mirrors the coupon again from MySQL; empty when MySQL has no such coupon. */
    public Mono<Coupon> restore(long couponId) {
        return blocking.call(() -> coupons.findById(couponId))
                .flatMap(found -> found.map(Mono::just).orElseGet(Mono::empty))
                .flatMap(coupon -> mirror(coupon).thenReturn(coupon));
    }

    /** Mirrors the coupon again or fails with 404 when it does not exist. */
    public Mono<Coupon> restoreOrNotFound(long couponId) {
        return restore(couponId).switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)));
    }
}
