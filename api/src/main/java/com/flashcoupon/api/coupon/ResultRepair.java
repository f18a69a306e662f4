package com.flashcoupon.api.coupon;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Writes back the results a failover lost (docs/architecture.md, "Redis lost"): what MySQL decided of a coupon and
 * Redis no longer holds, on each member's home shard; the retire pass runs it on a settled event whose results fell
 * short ({@code EventRetirer}).
 */
@Component
public class ResultRepair {

    private static final RedisScript<Long> REPAIR =
            RedisScript.of(LuaScripts.text("scripts/repair_results.lua"), Long.class);

    private final ReactiveStringRedisTemplate redis;
    private final JdbcClient jdbc;
    private final BlockingIo blocking;

    ResultRepair(ReactiveStringRedisTemplate redis, JdbcClient jdbc, BlockingIo blocking) {
        this.redis = redis;
        this.jdbc = jdbc;
        this.blocking = blocking;
    }

    /**
     * Puts back into Redis the results MySQL has for the coupon and Redis does not (lost in a failover after the worker
     * wrote them), and sets {@code done} to the members with a result; no lock: it adds what is missing and nothing
     * else, so it may run beside the worker.
     *
     * @return how many results were missing
     */
    public Mono<Long> repairResults(long couponId) {
        return repairResults(couponId, 1);
    }

    /**
     * As above, for an event of {@code shards} stock shards: each member's result goes back on their home shard, whose
     * done is then set to the members with a result there (docs/architecture.md, "Stock shards").
     */
    public Mono<Long> repairResults(long couponId, int shards) {
        return repairPages(couponId, shards, KnownMembers.Source.WALLETS, "", 0)
                .flatMap(wallets -> repairPages(couponId, shards, KnownMembers.Source.FAILURES, "", wallets));
    }

    private Mono<Long> repairPages(long couponId, int shards, KnownMembers.Source source, String after, long sum) {
        return blocking.call(() -> source.read(jdbc, couponId, after)).flatMap(rows -> {
            if (rows.isEmpty()) {
                return Mono.just(sum);
            }
            java.util.Map<Integer, List<String>> byShard = new java.util.TreeMap<>();
            for (KnownMembers.Known row : rows) {
                List<String> args = byShard.computeIfAbsent(
                        shards <= 1 ? 0 : StockShards.home(row.member(), shards), shard -> new ArrayList<>());
                args.add(row.member());
                args.add(row.result());
                args.add(Long.toString(row.sequence()));
            }
            return Flux.fromIterable(byShard.entrySet())
                    .concatMap(shard -> redis.execute(
                                    REPAIR, repairKeys(couponId, shards, shard.getKey()), shard.getValue())
                            .next())
                    .reduce(0L, Long::sum)
                    .flatMap(added -> rows.size() < MemberRestore.PAGE_SIZE
                            ? Mono.just(sum + added)
                            : repairPages(
                                    couponId, shards, source, rows.getLast().member(), sum + added));
        });
    }

    /**
     * repair_results.lua's keys: the event's own, or a shard's (its stock hash stands for the meta, and its admission
     * times tell a member who holds a second place after a restore, as shard_results.lua does).
     */
    private static List<String> repairKeys(long couponId, int shards, int shard) {
        if (shards <= 1) {
            return List.of(
                    CouponKeys.result(couponId),
                    CouponKeys.done(couponId),
                    CouponKeys.retired(couponId),
                    CouponKeys.meta(couponId),
                    CouponKeys.queue(couponId));
        }
        String tag = StockShards.tag(couponId, shards, shard);
        return List.of(
                StockShards.result(tag),
                StockShards.done(tag),
                StockShards.retired(tag),
                StockShards.stock(tag),
                StockShards.queue(tag),
                StockShards.times(tag));
    }
}
