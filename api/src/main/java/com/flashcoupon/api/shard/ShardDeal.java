package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
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
     * (GateSettings.mirrorArg; '' none), a fair start's drawAt (epoch ms, 0 = none: {@link ShardDraws}) and whether
     * MySQL recorded its draw (a restore then marks every shard drawn: the restore put the placed members back).
     */
    public record Settings(
            long version,
            long openAt,
            long closeAt,
            boolean closed,
            int rate,
            long announceAt,
            String gate,
            long drawAt,
            boolean drawn) {

        /** No fair start (drawAt 0). */
        public Settings(
                long version, long openAt, long closeAt, boolean closed, int rate, long announceAt, String gate) {
            this(version, openAt, closeAt, closed, rate, announceAt, gate, 0, false);
        }

        /** Open since the epoch, never closing, no gate: what tests of the stock alone deal with. */
        public static Settings open(int rate) {
            return new Settings(0, 0, 0, false, rate, 0, "");
        }
    }

    static final ScriptConnection.Script INIT = ScriptConnection.Script.of(
            LuaScripts.text("scripts/gate_settings.lua") + LuaScripts.text("scripts/shard_init.lua"));

    static final ScriptConnection.Script COUNT = ShardStock.script("shard_count.lua");
    static final ScriptConnection.Script REOPEN = ShardStock.script("shard_reopen.lua");
    static final ScriptConnection.Script RESTORED = ScriptConnection.Script.of(
            LuaScripts.text("scripts/decided_cursor.lua") + LuaScripts.text("scripts/shard_restored.lua"));
    static final ScriptConnection.Script DEALT = ShardStock.script("shard_dealt.lua");
    static final ScriptConnection.Script RESET = ShardStock.script("shard_reset.lua");

    private final ShardStock.Redis redis;
    private final ShardStock stock;
    private final ShardDealPlans plans;

    ShardDeal(ShardStock.Redis redis, ShardStock stock) {
        this.redis = redis;
        this.stock = stock;
        this.plans = new ShardDealPlans(redis);
    }

    /** Deals the stock as below, with the settings of an event open since the epoch at 1,000 a second. */
    public Mono<Void> init(long couponId, int shards, int total) {
        return init(couponId, shards, total, Settings.open(1_000));
    }

    /** Deals the stock as below, for an event that published nothing yet. */
    public Mono<Void> init(long couponId, int shards, int total, Settings settings) {
        return init(couponId, shards, total, 0, settings);
    }

    /**
     * Deals the stock; each share is set only once, so dealing again never undoes a transfer. The settings are written
     * on every shard each time, unless a shard holds a newer version. What a shard without a share gets:
     *
     * <ul>
     *   <li>when no shard of the count was ever fully dealt (a new event, or one Redis lost whole): its members back
     *       (the restore put those MySQL decided on their home shards) and its part of the free stock, {@code total}
     *       less the admissions MySQL knows ({@code floor}: published or decided, the higher) or the members back,
     *       whichever is more: shard i gets {@code free / K}, one more for the first {@code free mod K}. A new event's
     *       shares are thus {@code total / K}, as always;
     *   <li>when a shard of the count was fully dealt before ({@code dealt}), the shard was lost with its primary while
     *       others kept theirs: its members back (written back first, by {@code putBack}) and what it held less what
     *       it had published, from the others' stock and its publication mark ({@link ShardDealPlans}); no free stock
     *       when that is not known. Never more than N.
     * </ul>
     */
    public Mono<Void> init(long couponId, int shards, int total, long floor, Settings settings) {
        return init(couponId, shards, total, floor, settings, lost -> Mono.empty(), false);
    }

    /**
     * As above; {@code putBack} first writes back the members MySQL decided whose home is one of the shards lost alone
     * (their places are then kept: asking again answers them as before), and the shards are read again. {@code
     * metaRestored}: mirror.lua has just written the meta again after a loss (or for a new event), so its base is set
     * here, once: the floor less the members put back on every shard (mirror.lua counted shard 0's alone).
     */
    public Mono<Void> init(
            long couponId,
            int shards,
            int total,
            long floor,
            Settings settings,
            Function<Set<Integer>, Mono<Void>> putBack,
            boolean metaRestored) {
        String[] tags = stock.tags(couponId, shards);
        Mono<List<List<Object>>> read = Flux.range(0, shards)
                .concatMap(shard -> redis.eval(RESTORED, restoredKeys(tags[shard]), Long.toString(floor)))
                .collectList();
        return read.flatMap(found -> {
                    Set<Integer> lost = lostAlone(found, shards);
                    return lost.isEmpty()
                            ? Mono.just(found)
                            : putBack.apply(lost).then(read);
                })
                .flatMap(found -> plans.plan(couponId, tags, shards, total, floor, found, metaRestored)
                        .map(plan -> new Dealing(plan, !lostAlone(found, shards).isEmpty())))
                .flatMap(dealing -> {
                    ShardDealPlans.Plan plan = dealing.plan();
                    // shard 0 first, in the meta's slot: a mirror older than the meta or shard 0 deals nothing,
                    // so it never creates the shards of a count a newer mirror replaced (their tombstones stop it
                    // from then on)
                    return initOne(tags, 0, shards, total, settings, CouponKeys.meta(couponId), plan)
                            .flatMap(share -> share < 0
                                    ? Mono.<Void>empty()
                                    : Flux.range(1, shards - 1)
                                            .concatMap(
                                                    shard -> initOne(tags, shard, shards, total, settings, null, plan))
                                            .thenMany(Flux.range(0, shards)
                                                    .concatMap(shard -> dealt(
                                                            couponId, tags, shard, shards, plan.base(), metaRestored)))
                                            // a shard lost alone was dealt again: the others' sold-out marks go,
                                            // so that what it holds is reachable from every home
                                            .thenMany(Flux.range(0, dealing.lostAlone() ? shards : 0)
                                                    .concatMap(shard -> redis.eval(
                                                            REOPEN, new String[] {StockShards.stock(tags[shard])})))
                                            .then());
                });
    }

    /** A deal's plan, and whether it deals a shard lost alone. */
    private record Dealing(ShardDealPlans.Plan plan, boolean lostAlone) {}

    /** Marks one shard dealt for the count; on shard 0, when the meta was just restored, the meta's base too. */
    private Mono<List<Object>> dealt(
            long couponId, String[] tags, int shard, int shards, long base, boolean metaRestored) {
        return shard == 0 && metaRestored
                ? redis.eval(
                        DEALT,
                        new String[] {StockShards.stock(tags[0]), CouponKeys.meta(couponId)},
                        Integer.toString(shards),
                        Long.toString(base))
                : redis.eval(DEALT, new String[] {StockShards.stock(tags[shard])}, Integer.toString(shards));
    }

    /** The shards without a share after a deal of this count completed: lost alone (see {@link #init}). */
    static Set<Integer> lostAlone(List<List<Object>> found, int shards) {
        Set<Integer> lost = new TreeSet<>();
        if (dealtBefore(found, shards)) {
            for (int shard = 0; shard < shards; shard++) {
                if (number(found.get(shard), 0) == 0) {
                    lost.add(shard);
                }
            }
        }
        return lost;
    }

    static boolean dealtBefore(List<List<Object>> found, int shards) {
        return found.stream().anyMatch(reply -> number(reply, 0) == 1 && number(reply, 2) == shards);
    }

    /** The members back in every shard's queue, from shard_restored.lua's replies. */
    static long back(List<List<Object>> found) {
        return found.stream().mapToLong(reply -> number(reply, 1)).sum();
    }

    /** What each shard is dealt, from shard_restored.lua's replies (see {@link #init}). */
    static long[] shares(List<List<Object>> found, int shards, int total, long floor) {
        long back = back(found);
        long free = dealtBefore(found, shards) ? 0 : Math.max(0, total - Math.max(floor, back));
        long[] shares = new long[shards];
        for (int shard = 0; shard < shards; shard++) {
            shares[shard] = number(found.get(shard), 1) + free / shards + (shard < free % shards ? 1 : 0);
        }
        return shares;
    }

    static String[] restoredKeys(String tag) {
        return new String[] {
            StockShards.stock(tag),
            StockShards.queue(tag),
            StockShards.seq(tag),
            StockShards.cursor(tag),
            StockShards.done(tag),
            StockShards.result(tag),
            StockShards.retired(tag),
            StockShards.escrow(tag)
        };
    }

    private Mono<Long> initOne(
            String[] tags, int shard, int shards, int total, Settings settings, String meta, ShardDealPlans.Plan plan) {
        String[] keys = meta == null
                ? new String[] {StockShards.stock(tags[shard]), StockShards.queue(tags[shard])}
                : new String[] {StockShards.stock(tags[shard]), StockShards.queue(tags[shard]), meta};
        return redis.eval(
                        INIT,
                        keys,
                        Long.toString(plan.shares()[shard]),
                        Integer.toString(total),
                        Long.toString(settings.version()),
                        Integer.toString(shards),
                        Long.toString(settings.openAt()),
                        Long.toString(settings.closeAt()),
                        settings.closed() ? "1" : "0",
                        Integer.toString(settings.rate()),
                        Long.toString(settings.announceAt()),
                        settings.gate(),
                        plan.restored(),
                        shard == 0 && plan.startMarks() ? "1" : "",
                        plan.back()[shard],
                        plan.found()[shard],
                        Long.toString(settings.drawAt()),
                        settings.drawn() ? "1" : "")
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
                        new String[] {
                            StockShards.stock(tags[shard]),
                            StockShards.queue(tags[shard]),
                            StockShards.eligible(tags[shard]),
                            StockShards.eligibleVersion(tags[shard])
                        },
                        Long.toString(version),
                        Integer.toString(shards)))
                .filter(reply -> number(reply, 0) == 0)
                .count();
    }
}
