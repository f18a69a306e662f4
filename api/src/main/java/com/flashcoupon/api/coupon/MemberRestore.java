package com.flashcoupon.api.coupon;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Puts back into Redis every member MySQL knows of a coupon that Redis lost (docs/architecture.md, "Redis lost"):
 * each decided member, with their first admission sequence into the queue and their outcome into the result hash (of
 * their home shard, for an event of several stock shards),
 * so that asking again answers 200 and the status reads as before. One caller at a time holds the coupon's
 * {@code restoring} lock; the pages go in before the meta exists ({@code mirror.lua} writes it last), so admission
 * never runs on a half restore, and a restore that died is simply run again by the next request (every page is
 * idempotent, the lock expires). Reads MySQL in pages of {@link #PAGE_SIZE} on the blocking executor: an event may
 * hold 500,000 members.
 */
@Component
public class MemberRestore {

    private static final Logger log = LoggerFactory.getLogger(MemberRestore.class);

    /** Members per MySQL read and per Redis script call. */
    static final int PAGE_SIZE = 5_000;

    /** How long the lock lasts without a page written: a holder that died gives way after this. */
    static final Duration LOCK_TTL = Duration.ofSeconds(30);

    private static final RedisScript<Long> PAGE =
            RedisScript.of(LuaScripts.text("scripts/restore_members.lua"), Long.class);
    private static final RedisScript<Long> RELEASE =
            RedisScript.of(LuaScripts.text("scripts/release_lock.lua"), Long.class);

    private static final RedisScript<Long> SHARD_PAGE =
            RedisScript.of(LuaScripts.text("scripts/shard_restore.lua"), Long.class);
    private static final RedisScript<Long> RENEW =
            RedisScript.of(LuaScripts.text("scripts/drain_renew.lua"), Long.class);

    private final ReactiveStringRedisTemplate redis;
    private final JdbcClient jdbc;
    private final CouponRepository coupons;
    private final BlockingIo blocking;
    private final Counter unknown;
    private final Counter restored;

    MemberRestore(
            ReactiveStringRedisTemplate redis,
            JdbcClient jdbc,
            CouponRepository coupons,
            BlockingIo blocking,
            MeterRegistry meters) {
        this.redis = redis;
        this.jdbc = jdbc;
        this.coupons = coupons;
        this.blocking = blocking;
        this.unknown = Counter.builder("coupon.restore.unknown")
                .description("Admissions a lost Redis held that were never handed to Kafka: their members are unknown")
                .register(meters);
        this.restored = Counter.builder("coupon.restore.members")
                .description("Members put back into Redis from MySQL after a Redis loss")
                .register(meters);
    }

    /** Takes the coupon's restore lock; empty when another caller holds it. */
    Mono<String> lock(long couponId) {
        // unique, not secret: ThreadLocalRandom, since UUID.randomUUID may read /dev/urandom on this event loop
        var random = ThreadLocalRandom.current();
        String token = new UUID(random.nextLong(), random.nextLong()).toString();
        return redis.opsForValue()
                .setIfAbsent(CouponKeys.restoring(couponId), token, LOCK_TTL)
                .filter(Boolean::booleanValue)
                .map(taken -> token);
    }

    /** Gives the lock back after a failure, if still held. */
    Mono<Void> release(long couponId, String token) {
        return redis.execute(RELEASE, List.of(CouponKeys.restoring(couponId)), List.of(token))
                .then();
    }

    /**
     * Counts the admissions that are unknown now, then writes every decided member back, page by page, while the lock
     * holds. Fails with {@link LockLost} when another caller took the lock over (this one was too slow).
     *
     * @return how many members were written back
     */
    Mono<Long> restore(long couponId, String token) {
        return restore(couponId, 1, token);
    }

    /**
     * As above, for an event of {@code shards} stock shards: each member goes back on their home shard (the lock stays
     * on the event's slot, renewed before each shard's part of a page).
     */
    Mono<Long> restore(long couponId, int shards, String token) {
        return blocking.call(() -> coupons.countUnknownAtRestore(couponId))
                .doOnNext(lost -> {
                    if (lost > 0) {
                        unknown.increment(lost);
                        log.error(
                                "coupon {}: Redis lost {} admissions before they were published; their members are"
                                        + " unknown now (counted in the admin view's stats.unknown)",
                                couponId,
                                lost);
                    }
                })
                .then(pages(couponId, shards, token, KnownMembers.Source.WALLETS, "", 0))
                .flatMap(wallets -> pages(couponId, shards, token, KnownMembers.Source.FAILURES, "", wallets))
                .flatMap(decided -> pages(couponId, shards, token, KnownMembers.Source.PLACED, "", decided))
                .doOnNext(members -> {
                    restored.increment(members);
                    log.warn("coupon {}: {} members MySQL knows were put back into Redis", couponId, members);
                });
    }

    /**
     * Writes back the members MySQL decided whose home is one of the {@code lost} shards of an event of {@code shards}
     * (lost alone, while the others kept theirs: ShardDeal), before the shards are dealt again. No lock: the event's
     * other shards and meta stand, and every write is idempotent.
     */
    public Mono<Void> putBack(long couponId, int shards, java.util.Set<Integer> lost) {
        java.util.function.Predicate<KnownMembers.Known> homed =
                row -> lost.contains(StockShards.home(row.member(), shards));
        return pages(couponId, shards, null, KnownMembers.Source.WALLETS, "", 0, homed)
                .flatMap(wallets -> pages(couponId, shards, null, KnownMembers.Source.FAILURES, "", wallets, homed))
                .doOnNext(members -> log.warn(
                        "coupon {}: shards {} of {} were lost alone; {} members MySQL decided there were put back",
                        couponId,
                        lost,
                        shards,
                        members))
                .then();
    }

    private Mono<Long> pages(
            long couponId, int shards, String token, KnownMembers.Source source, String after, long sum) {
        return pages(couponId, shards, token, source, after, sum, row -> true);
    }

    private Mono<Long> pages(
            long couponId,
            int shards,
            String token,
            KnownMembers.Source source,
            String after,
            long sum,
            java.util.function.Predicate<KnownMembers.Known> which) {
        return blocking.call(() -> source.read(jdbc, couponId, after)).flatMap(all -> {
            if (all.isEmpty()) {
                return Mono.just(sum);
            }
            List<KnownMembers.Known> rows = all.stream().filter(which).toList();
            Mono<Long> written = rows.isEmpty()
                    ? Mono.just(0L)
                    : shards > 1 ? writeOnShards(couponId, shards, token, rows) : write(couponId, token, rows);
            return written.flatMap(added -> all.size() < PAGE_SIZE
                    ? Mono.just(sum + rows.size())
                    : pages(couponId, shards, token, source, all.getLast().member(), sum + rows.size(), which));
        });
    }

    /**
     * One page on the members' home shards: each shard's part in one step, the lock renewed before each (when one is
     * held).
     */
    private Mono<Long> writeOnShards(long couponId, int shards, String token, List<KnownMembers.Known> rows) {
        java.util.Map<Integer, List<String>> byShard = new java.util.TreeMap<>();
        for (KnownMembers.Known row : rows) {
            List<String> args =
                    byShard.computeIfAbsent(StockShards.home(row.member(), shards), shard -> new ArrayList<>());
            args.add(row.member());
            args.add(Long.toString(row.sequence()));
            args.add(row.result());
        }
        return Flux.fromIterable(byShard.entrySet())
                .concatMap(shard -> {
                    String tag = StockShards.tag(couponId, shards, shard.getKey());
                    Mono<Long> lock = token == null
                            ? Mono.just(1L) // a put-back of shards lost alone holds no lock (putBack)
                            : redis.execute(
                                            RENEW,
                                            List.of(CouponKeys.restoring(couponId)),
                                            List.of(token, Long.toString(LOCK_TTL.toMillis())))
                                    .next();
                    return lock.flatMap(held -> held == 1
                                    ? redis.execute(
                                                    SHARD_PAGE,
                                                    List.of(
                                                            StockShards.queue(tag),
                                                            StockShards.times(tag),
                                                            StockShards.result(tag),
                                                            StockShards.retired(tag)),
                                                    shard.getValue())
                                            .next()
                                    : Mono.just(-1L))
                            .flatMap(added -> added < 0 ? Mono.<Long>error(new LockLost(couponId)) : Mono.just(added));
                })
                .reduce(0L, Long::sum);
    }

    private Mono<Long> write(long couponId, String token, List<KnownMembers.Known> rows) {
        List<String> args = new ArrayList<>(2 + rows.size() * 3);
        args.add(token);
        args.add(Long.toString(LOCK_TTL.toMillis()));
        for (KnownMembers.Known row : rows) {
            args.add(row.member());
            args.add(Long.toString(row.sequence()));
            args.add(row.result());
        }
        return redis.execute(
                        PAGE,
                        List.of(
                                CouponKeys.queue(couponId),
                                CouponKeys.result(couponId),
                                CouponKeys.restoring(couponId),
                                CouponKeys.retired(couponId)),
                        args)
                .next()
                .flatMap(added -> added < 0 ? Mono.error(new LockLost(couponId)) : Mono.just(added));
    }

    /** Another caller took the lock over while this one was writing: it finishes the restore. */
    static final class LockLost extends RuntimeException {
        LockLost(long couponId) {
            super("coupon " + couponId + ": the restore's lock was taken over", null, false, false);
        }
    }
}
