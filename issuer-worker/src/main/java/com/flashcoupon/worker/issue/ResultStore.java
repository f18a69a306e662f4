package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;

/**
 * Writes committed decisions to Redis for the api's status reads: one script call per coupon (keys share the
 * coupon's hash tag), {@code HSETNX} per member and the done counter only for members that were new. A member a
 * restored Redis no longer had in its queue goes back there with its sequence (docs/architecture.md, "Redis lost"),
 * so asking again answers 200 instead of admitting them twice.
 */
@Component
class ResultStore {

    static final RedisScript<Long> RECORD_RESULTS =
            RedisScript.of(LuaScripts.text("scripts/record_results.lua"), Long.class);

    private final StringRedisTemplate redis;

    ResultStore(StringRedisTemplate redis) {
        this.redis = redis;
    }

    /** @return how many members got their first result now */
    long record(long couponId, Collection<Decision> decisions) {
        return record(couponId, decisions, -1);
    }

    /**
     * Also leaves how long the MySQL transaction of these decisions took (smoothed, in the coupon's stats hash) for
     * the api's drainer, which cuts the coupon's effective rate when MySQL slows down.
     *
     * @param writeNanos the transaction's duration, or a negative number to leave the latency as it is
     * @return how many members got their first result now
     */
    long record(long couponId, Collection<Decision> decisions, long writeNanos) {
        if (decisions.isEmpty()) {
            return 0;
        }
        List<String> args = new ArrayList<>(decisions.size() * 3 + 2);
        args.add(writeNanos < 0 ? "" : Long.toString(Math.max(0, writeNanos / 1_000_000)));
        args.add(Long.toString(System.currentTimeMillis()));
        for (Decision decision : decisions) {
            args.add(decision.memberId());
            args.add(decision.statusValue());
            args.add(Long.toString(decision.sequence()));
        }
        Long added = redis.execute(
                RECORD_RESULTS,
                List.of(
                        CouponKeys.result(couponId),
                        CouponKeys.done(couponId),
                        CouponKeys.retired(couponId),
                        CouponKeys.meta(couponId),
                        CouponKeys.queue(couponId),
                        CouponKeys.cursor(couponId),
                        CouponKeys.stats(couponId)),
                args.toArray(Object[]::new));
        return added == null ? 0 : added;
    }
}
