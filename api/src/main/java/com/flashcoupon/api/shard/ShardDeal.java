package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An event's stock dealt over its shards, and the event's settings kept on each for the admissions made there
 * (docs/architecture.md, "Stock shards"): what the mirror does for an event of more than one shard ({@link
 * ShardMirror}), and what it undoes when the count changes before the event opens.
 */
public final class ShardDeal {

    /**
     * The event's settings each shard keeps for its admissions (shard_init.lua): the MySQL row's version (an older one
     * is never written over a newer), the window, the rate, the announcement (0 = none) and the gate's settings
     * (GateSettings.mirrorArg; '' none).
     */
    public record Settings(
            long version, long openAt, long closeAt, boolean closed, int rate, long announceAt, String gate) {

        /** Open since the epoch, never closing, no gate: what tests of the stock alone deal with. */
        public static Settings open(int rate) {
            return new Settings(0, 0, 0, false, rate, 0, "");
        }
    }

    static final ScriptConnection.Script INIT = ScriptConnection.Script.of(
            LuaScripts.text("scripts/gate_settings.lua") + LuaScripts.text("scripts/shard_init.lua"));

    static final ScriptConnection.Script COUNT = ShardStock.script("shard_count.lua");
    static final ScriptConnection.Script RESET = ShardStock.script("shard_reset.lua");

    private final ShardStock.Redis redis;
    private final ShardStock stock;

    ShardDeal(ShardStock.Redis redis, ShardStock stock) {
        this.redis = redis;
        this.stock = stock;
    }

    /** Deals the stock as below, with the settings of an event open since the epoch at 1,000 a second. */
    public Mono<Void> init(long couponId, int shards, int total) {
        return init(couponId, shards, total, Settings.open(1_000));
    }

    /**
     * Deals the stock: shard i gets {@code total / K}, one more for the first {@code total mod K}; each share is set
     * only once, so dealing again never undoes a transfer. The settings are written on every shard each time, unless
     * a shard holds a newer version.
     */
    public Mono<Void> init(long couponId, int shards, int total, Settings settings) {
        String[] tags = stock.tags(couponId, shards);
        // shard 0 first, in the meta's slot: a mirror older than the meta or shard 0 deals nothing, so it never
        // creates the shards of a count a newer mirror replaced (their tombstones stop it from then on)
        return initOne(tags, 0, shards, total, settings, CouponKeys.meta(couponId))
                .flatMap(share -> share < 0
                        ? Mono.<Void>empty()
                        : Flux.range(1, shards - 1)
                                .concatMap(shard -> initOne(tags, shard, shards, total, settings, null))
                                .then());
    }

    private Mono<Long> initOne(String[] tags, int shard, int shards, int total, Settings settings, String meta) {
        String[] keys = meta == null
                ? new String[] {StockShards.stock(tags[shard])}
                : new String[] {StockShards.stock(tags[shard]), meta};
        return redis.eval(
                        INIT,
                        keys,
                        Integer.toString(total / shards + (shard < total % shards ? 1 : 0)),
                        Integer.toString(total),
                        Long.toString(settings.version()),
                        Integer.toString(shards),
                        Long.toString(settings.openAt()),
                        Long.toString(settings.closeAt()),
                        settings.closed() ? "1" : "0",
                        Integer.toString(settings.rate()),
                        Long.toString(settings.announceAt()),
                        settings.gate())
                .map(reply -> number(reply, 0));
    }

    /** The shard count the event's stock was last dealt for; 0 when it never was (an event of one shard). */
    public Mono<Integer> dealtShards(long couponId) {
        return redis.eval(COUNT, new String[] {StockShards.stock(CouponKeys.tag(couponId))})
                .map(reply -> (int) number(reply, 0));
    }

    /**
     * Removes the stock of every shard of an event dealt for {@code shards}, before it is dealt for another count
     * (changed before the event opened): an instance still asking with the old count finds no stock and asks the
     * event again. A shard that holds admissions keeps its stock (a count never changes once members hold places);
     * how many shards did. Only by a mirror of {@code version} at least the shard's (the hash keeps the version).
     */
    public Mono<Long> reset(long couponId, int shards, long version) {
        String[] tags = stock.tags(couponId, shards);
        return Flux.range(0, shards)
                .concatMap(shard -> redis.eval(
                        RESET,
                        new String[] {StockShards.stock(tags[shard]), StockShards.queue(tags[shard])},
                        Long.toString(version)))
                .filter(reply -> number(reply, 0) == 0)
                .count();
    }
}
