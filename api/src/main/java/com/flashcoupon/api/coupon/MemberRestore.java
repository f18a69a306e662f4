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
 * each decided member, with their first admission sequence into the queue and their outcome into the result hash,
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

    private static final RedisScript<Long> REPAIR =
            RedisScript.of(LuaScripts.text("scripts/repair_results.lua"), Long.class);

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
                .then(pages(couponId, token, Source.WALLETS, "", 0))
                .flatMap(wallets -> pages(couponId, token, Source.FAILURES, "", wallets))
                .flatMap(decided -> pages(couponId, token, Source.PLACED, "", decided))
                .doOnNext(members -> {
                    restored.increment(members);
                    log.warn("coupon {}: {} members MySQL knows were put back into Redis", couponId, members);
                });
    }

    private Mono<Long> pages(long couponId, String token, Source source, String after, long sum) {
        return blocking.call(() -> source.read(jdbc, couponId, after)).flatMap(rows -> {
            if (rows.isEmpty()) {
                return Mono.just(sum);
            }
            return write(couponId, token, rows)
                    .flatMap(written -> rows.size() < PAGE_SIZE
                            ? Mono.just(sum + rows.size())
                            : pages(couponId, token, source, rows.getLast().member(), sum + rows.size()));
        });
    }

    private Mono<Long> write(long couponId, String token, List<Known> rows) {
        List<String> args = new ArrayList<>(2 + rows.size() * 3);
        args.add(token);
        args.add(Long.toString(LOCK_TTL.toMillis()));
        for (Known row : rows) {
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
        return repairPages(couponId, shards, Source.WALLETS, "", 0)
                .flatMap(wallets -> repairPages(couponId, shards, Source.FAILURES, "", wallets));
    }

    private Mono<Long> repairPages(long couponId, int shards, Source source, String after, long sum) {
        return blocking.call(() -> source.read(jdbc, couponId, after)).flatMap(rows -> {
            if (rows.isEmpty()) {
                return Mono.just(sum);
            }
            java.util.Map<Integer, List<String>> byShard = new java.util.TreeMap<>();
            for (Known row : rows) {
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
                    .flatMap(added -> rows.size() < PAGE_SIZE
                            ? Mono.just(sum + added)
                            : repairPages(
                                    couponId, shards, source, rows.getLast().member(), sum + added));
        });
    }

    /**
     * repair_results.lua's keys: the event's own, or a shard's (its stock hash stands for the meta: it has no base, as
     * a sharded event has none yet).
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
                StockShards.queue(tag));
    }

    /** A member MySQL knows: the first sequence and the result value as the worker writes it ('' for none yet). */
    private record Known(String member, long sequence, String result) {}

    /** Where decided members are: wallets (ISSUED) and failures (FAILED), read by member id from the coupon's key. */
    private enum Source {
        WALLETS("SELECT member_id, request_seq, id FROM coupon_wallet WHERE coupon_id = ? AND member_id > ?"
                + " ORDER BY member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) throws java.sql.SQLException {
                return CouponKeys.ISSUED_PREFIX + rs.getLong("id");
            }
        },
        FAILURES("SELECT member_id, request_seq, reason FROM coupon_issue_failure WHERE coupon_id = ?"
                + " AND member_id > ? ORDER BY member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) throws java.sql.SQLException {
                return CouponKeys.FAILED_PREFIX + rs.getString("reason");
            }
        },
        /**
         * The members a recorded draw placed that were never handed to Kafka (their sequence above everything
         * published or decided), at the sequence their place gives: accepted, so never lost with Redis. No result
         * yet: they queue above every decided member, where mirror.lua puts the cursor.
         */
        PLACED("SELECT e.member_id, d.first_sequence + e.place - 1 AS request_seq FROM coupon_draw_entrant e"
                + " JOIN coupon_draw d ON d.coupon_id = e.coupon_id JOIN coupon c ON c.id = e.coupon_id"
                + " WHERE e.coupon_id = ? AND e.member_id > ? AND e.place IS NOT NULL"
                + " AND d.drawn_at IS NOT NULL AND d.first_sequence IS NOT NULL"
                + " AND d.first_sequence + e.place - 1 > GREATEST(c.published_count,"
                + " COALESCE((SELECT MAX(w.request_seq) FROM coupon_wallet w WHERE w.coupon_id = e.coupon_id), 0),"
                + " COALESCE((SELECT MAX(f.request_seq) FROM coupon_issue_failure f WHERE f.coupon_id = e.coupon_id),"
                + " 0)) ORDER BY e.member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) {
                return "";
            }
        };

        private final String sql;

        Source(String sql) {
            this.sql = sql;
        }

        abstract String result(java.sql.ResultSet rs) throws java.sql.SQLException;

        List<Known> read(JdbcClient jdbc, long couponId, String after) {
            return jdbc.sql(sql)
                    .params(couponId, after, PAGE_SIZE)
                    .query((rs, row) -> new Known(rs.getString("member_id"), rs.getLong("request_seq"), result(rs)))
                    .list();
        }
    }

    /** Another caller took the lock over while this one was writing: it finishes the restore. */
    static final class LockLost extends RuntimeException {
        LockLost(long couponId) {
            super("coupon " + couponId + ": the restore's lock was taken over", null, false, false);
        }
    }
}
