package com.flashcoupon.api.coupon;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.shard.ShardDraws;
import com.flashcoupon.api.shard.ShardOrder;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.time.Clock;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Reads a coupon's live state from Redis in one round trip, restoring the mirror from MySQL when it is missing. A
 * retired event's state comes from MySQL alone.
 */
@Component
public class CouponStates {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> STATE =
            RedisScript.of(LuaScripts.text("scripts/coupon_state.lua"), List.class);

    private final ReactiveStringRedisTemplate redis;
    private final CouponMirror mirror;
    private final RetiredCoupons retired;
    private final Clock clock;
    private final ShardOrder order;
    private final ShardDraws draws;

    CouponStates(
            ReactiveStringRedisTemplate redis,
            CouponMirror mirror,
            RetiredCoupons retired,
            Clock clock,
            ShardOrder order,
            ShardStock stock) {
        this.order = order;
        this.draws = stock.draws();
        this.redis = redis;
        this.mirror = mirror;
        this.retired = retired;
        this.clock = clock;
    }

    /** The coupon's state, or a 404 problem when MySQL has no such coupon. */
    public Mono<CouponState> load(long couponId) {
        var gone = retired.find(couponId);
        if (gone.isPresent()) {
            return Mono.just(CouponState.retired(gone.get(), clock.millis()));
        }
        return read(couponId)
                .switchIfEmpty(Mono.defer(() -> mirror.restoreOrNotFound(couponId)
                        .flatMap(coupon -> coupon.retired()
                                ? Mono.just(CouponState.retired(coupon, clock.millis()))
                                : read(couponId))));
    }

    /**
     * A member's read of the coupon's state: when Redis does not hold it, {@code charge} is paid before MySQL is asked,
     * and an id MySQL just said it does not know is answered 404 at once ({@link CouponMirror#restoreOrNotFound(long,
     * Mono)}).
     */
    public Mono<CouponState> loadForMember(long couponId, Mono<Void> charge) {
        var gone = retired.find(couponId);
        if (gone.isPresent()) {
            return Mono.just(CouponState.retired(gone.get(), clock.millis()));
        }
        return read(couponId)
                .switchIfEmpty(Mono.defer(() -> mirror.restoreOrNotFound(couponId, charge)
                        .flatMap(coupon -> coupon.retired()
                                ? Mono.just(CouponState.retired(coupon, clock.millis()))
                                : read(couponId))));
    }

    /** The state Redis holds; empty when Redis has no mirror of the coupon. */
    public Mono<CouponState> read(long id) {
        List<String> keys = List.of(
                CouponKeys.meta(id),
                CouponKeys.queue(id),
                CouponKeys.cursor(id),
                CouponKeys.done(id),
                CouponKeys.stats(id),
                CouponKeys.draw(id));
        return redis.execute(STATE, keys, List.of())
                .next()
                .filter(reply -> number(reply, 0) == 1)
                .flatMap(reply -> reply.size() > 19 && number(reply, 19) > 1
                        // an event whose stock is in shards: what is admitted, published and done is on every shard
                        ? order.totals(id, (int) number(reply, 19)).flatMap(totals -> sharded(id, reply, totals))
                        : Mono.just(state(id, reply, null)));
    }

    /**
     * An event in shards; with a fair start not made yet, its entrants are on every shard too (ShardDraws#counts: a
     * call per shard, only until the draw is made).
     */
    private Mono<CouponState> sharded(long id, List<?> reply, ShardOrder.Batch totals) {
        CouponState state = state(id, reply, totals);
        if (!state.draw().pending()) {
            return Mono.just(state);
        }
        return draws.counts(id, state.shards())
                .map(counts -> state.withDraw(
                        counts.held(), new CouponState.Draw(state.draw().state(), counts.entrants(), counts.places())));
    }

    /** coupon_state.lua's reply, with every shard's totals in place of shard 0's when given. */
    private static CouponState state(long id, List<?> reply, ShardOrder.Batch shards) {
        return new CouponState(
                id,
                text(reply, 1),
                number(reply, 2),
                number(reply, 3),
                number(reply, 4),
                number(reply, 5) == 1,
                (int) number(reply, 6),
                // of an event in shards, the members a restore's base counted that came back are in the queues now,
                // and those who hold a second place there are counted once
                shards == null ? number(reply, 7) : Math.max(0, number(reply, 7) - shards.back() - shards.again()),
                shards == null ? number(reply, 8) : shards.admitted(),
                shards == null ? number(reply, 9) : shards.cursor(),
                shards == null ? number(reply, 10) : shards.done(),
                shards == null ? number(reply, 11) : shards.soldOut(),
                number(reply, 12),
                number(reply, 13),
                new CouponState.Draw((int) number(reply, 15), number(reply, 16), number(reply, 17)),
                number(reply, 18),
                shards == null ? 1 : shards.admittedByShard().length);
    }
}
