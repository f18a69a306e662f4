package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.StockShards;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A member's place across shards (docs/architecture.md, "Stock shards"): the members admitted before them, by
 * admission time, on every shard, and those of every shard that have their result; one call per shard.
 */
public final class ShardPositions {

    static final ScriptConnection.Script AHEAD = ShardStock.script("shard_ahead.lua");

    /** Admitted before the member's time on every shard, and done on every shard. */
    public record Place(long ahead, long done) {}

    private final ShardStock.Redis redis;
    private final ShardStock stock;

    public ShardPositions(ShardStock.Redis redis, ShardStock stock) {
        this.redis = redis;
        this.stock = stock;
    }

    /** How many members were admitted before {@code time} (us) on all the event's shards together. */
    public Mono<Long> ahead(long couponId, int shards, long time) {
        return place(couponId, shards, time).map(Place::ahead);
    }

    /** The members admitted before {@code time} (us) and the members done, on all the event's shards together. */
    public Mono<Place> place(long couponId, int shards, long time) {
        String[] tags = stock.tags(couponId, shards);
        return Flux.range(0, shards)
                .flatMap(shard -> redis.eval(
                        AHEAD,
                        new String[] {StockShards.times(tags[shard]), StockShards.done(tags[shard])},
                        Long.toString(time)))
                .reduce(
                        new Place(0, 0),
                        (sum, reply) -> new Place(sum.ahead() + number(reply, 0), sum.done() + number(reply, 2)));
    }
}
