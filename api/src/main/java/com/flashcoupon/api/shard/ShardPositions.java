package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

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

    /**
     * A member's request on their home shard: {@code found} when they hold a place or have a result; their result
     * ('' while waiting) and, while waiting, their {@link Place}.
     */
    public record Standing(boolean found, String result, Place place) {}

    static final ScriptConnection.Script STATUS = ShardStock.script("shard_status.lua");

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

    /** The member's request as their home shard has it, with their place across shards while they wait. */
    public Mono<Standing> standing(long couponId, int shards, String memberId) {
        String tag = stock.tags(couponId, shards)[StockShards.home(memberId, shards)];
        return redis.eval(
                        STATUS,
                        new String[] {StockShards.queue(tag), StockShards.times(tag), StockShards.result(tag)},
                        memberId)
                .flatMap(reply -> {
                    if (number(reply, 0) == 0) {
                        return Mono.just(new Standing(false, "", new Place(0, 0)));
                    }
                    String result = text(reply, 2);
                    return result.isEmpty()
                            ? place(couponId, shards, number(reply, 1)).map(place -> new Standing(true, "", place))
                            : Mono.just(new Standing(true, result, new Place(0, 0)));
                });
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
