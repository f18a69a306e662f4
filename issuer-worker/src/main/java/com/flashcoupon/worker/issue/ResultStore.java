package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongToIntFunction;
import org.springframework.beans.factory.annotation.Autowired;
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

    static final RedisScript<Long> RECORD_RESULTS = RedisScript.of(
            LuaScripts.text("scripts/write_latency.lua") + LuaScripts.text("scripts/record_results.lua"), Long.class);

    @SuppressWarnings("rawtypes")
    static final RedisScript<List> SHARD_RESULTS = RedisScript.of(
            LuaScripts.text("scripts/write_latency.lua") + LuaScripts.text("scripts/shard_results.lua"), List.class);

    private final StringRedisTemplate redis;
    private final LongToIntFunction shardsOf;

    /**
     * Each event's stock shards: read once per event and kept, since the count never changes once the event opened,
     * and a record exists only for a member admitted after that.
     */
    private final Map<Long, Integer> shards = new ConcurrentHashMap<>();

    /**
     * The count admission used: the event's meta in Redis says it (the api reads the same), MySQL when Redis lost the
     * meta (an operator's change committed in MySQL whose mirror failed never reaches admission).
     */
    @Autowired
    ResultStore(StringRedisTemplate redis, CouponRepository coupons) {
        this(redis, id -> {
            Object inRedis = redis.opsForHash().get(CouponKeys.meta(id), "shards");
            return inRedis != null
                    ? Integer.parseInt(inRedis.toString())
                    : coupons.findById(id).map(Coupon::stockShards).orElse(1);
        });
    }

    private static long number(List<?> reply, int index) {
        return reply == null || reply.size() <= index ? 0 : ((Number) reply.get(index)).longValue();
    }

    /** With {@code shardsOf}: an event's stock shards (1 for an event MySQL does not know). */
    ResultStore(StringRedisTemplate redis, LongToIntFunction shardsOf) {
        this.redis = redis;
        this.shardsOf = shardsOf;
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
        int count = shards.computeIfAbsent(couponId, shardsOf::applyAsInt);
        if (count > 1) {
            return recordOnShards(couponId, count, decisions, writeNanos);
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

    /**
     * An event whose stock is in shards (docs/architecture.md, "Stock shards"): each member's result goes to their
     * home shard, where their status is read (one script call per shard with members here); the write time goes with
     * shard 0's, into the event's own stats, which the drainer reads.
     */
    private long recordOnShards(long couponId, int count, Collection<Decision> decisions, long writeNanos) {
        Map<Integer, List<Decision>> byHome = new TreeMap<>();
        for (Decision decision : decisions) {
            byHome.computeIfAbsent(StockShards.home(decision.memberId(), count), home -> new ArrayList<>())
                    .add(decision);
        }
        if (writeNanos >= 0) {
            byHome.computeIfAbsent(0, home -> new ArrayList<>());
        }
        long added = 0;
        for (Map.Entry<Integer, List<Decision>> shard : byHome.entrySet()) {
            String tag = StockShards.tag(couponId, count, shard.getKey());
            List<String> args = new ArrayList<>(shard.getValue().size() * 2 + 2);
            args.add(writeNanos < 0 || shard.getKey() != 0 ? "" : Long.toString(Math.max(0, writeNanos / 1_000_000)));
            args.add(Long.toString(System.currentTimeMillis()));
            for (Decision decision : shard.getValue()) {
                args.add(decision.memberId());
                args.add(decision.statusValue());
                args.add(Long.toString(decision.sequence()));
            }
            List<?> written = redis.execute(
                    SHARD_RESULTS,
                    List.of(
                            StockShards.result(tag),
                            StockShards.done(tag),
                            StockShards.retired(tag),
                            StockShards.stock(tag),
                            StockShards.stats(tag),
                            StockShards.queue(tag),
                            StockShards.times(tag),
                            StockShards.cursor(tag)),
                    args.toArray(Object[]::new));
            added += number(written, 0);
        }
        return added;
    }
}
