package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.StockShards;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Stock moving between shards by escrow (docs/architecture.md, "Stock shards"), three steps, each one script on one
 * slot:
 *
 * <ol>
 *   <li>{@code shard_give.lua} on the donor: its cap goes down by the amount, which goes into its escrow under the
 *       transfer's id. The caps now sum to less than the total: never more.
 *   <li>{@code shard_take.lua} on the receiver: its cap goes up by the amount, once per transfer id (a set of the ids
 *       it took), whoever runs it.
 *   <li>{@code shard_settle.lua} on the donor: the escrow forgets the transfer.
 * </ol>
 *
 * An instance that dies between the steps leaves the amount in the donor's escrow, counted in no cap; {@link #recover}
 * (run by any instance, and always before sold out is said) takes and settles every such transfer, and running it
 * while the owner still works is harmless: the take counts once. With {@code coupon.redis.min-replicas}, each step
 * runs only once the step before it reached the replicas, so a failover of one primary cannot undo a give whose take
 * was made (which would count the amount twice) or a take whose escrow was settled (which would lose it).
 */
public final class ShardTransfers {

    static final ScriptConnection.Script GIVE = ShardStock.script("shard_give.lua");
    static final ScriptConnection.Script TAKE = ShardStock.script("shard_take.lua");
    static final ScriptConnection.Script SETTLE = ShardStock.script("shard_settle.lua");
    static final ScriptConnection.Script LOOK = ShardStock.script("shard_look.lua");
    static final ScriptConnection.Script OUT = ShardStock.script("shard_out.lua");
    static final ScriptConnection.Script TOUCH = ShardStock.script("shard_touch.lua");

    /** What a refill of a shard that is out came to. */
    enum Refill {
        /** stock was moved to it: ask again */
        MOVED,
        /** nothing was moved, but some shard may still hold stock: ask again */
        RETRY,
        /** every shard out, nothing in escrow, seen twice with no transfer between: marked sold out */
        SOLD_OUT,
        /** a shard has no stock hash */
        MISSING,
        /**
         * a transfer is in escrow and could not be completed now (a replica wait fell short): stock may be in flight,
         * so neither admitted nor sold out can be said
         */
        PENDING
    }

    /**
     * One shard seen by {@code shard_look.lua}.
     *
     * @param free its cap less its admissions
     * @param moves the transfers in and out it counted
     * @param escrow its transfers not yet settled: id → {@code receivingShard:amount}
     */
    public record Look(
            int shard, boolean exists, long free, long moves, boolean out, long admitted, Map<String, String> escrow) {}

    private final ShardStock.Redis redis;

    /** The sold-out check under way per event (its shard 0 tag): members who find every donor empty share one. */
    private final Map<String, Mono<Refill>> checks = new ConcurrentHashMap<>();

    private final DonorHints hints = new DonorHints();

    ShardTransfers(ShardStock.Redis redis) {
        this.redis = redis;
    }

    DonorHints hints() {
        return hints;
    }

    /**
     * Moves stock to {@code home} from the first donor that has some, asking those this instance saw with the most
     * first and skipping those it saw empty; sold out when none has and none will.
     */
    Mono<Refill> refill(String[] tags, int home, long want) {
        return Flux.defer(() -> Flux.fromIterable(hints.donors(tags, home)))
                .concatMap(donor -> {
                    // unique, not secret: ThreadLocalRandom, since UUID.randomUUID may read /dev/urandom on this event
                    // loop (BlockHound caught it once its buffer ran out)
                    var random = ThreadLocalRandom.current();
                    String id = new UUID(random.nextLong(), random.nextLong()).toString();
                    long since = redis.epoch();
                    return give(tags, donor, home, id, want).map(given -> new Given(donor, id, given, since));
                })
                .filter(given -> given.amount() > 0)
                .next()
                .flatMap(given -> complete(tags, given.donor(), home, given.id(), given.amount(), given.since())
                        .map(done -> done ? Refill.MOVED : Refill.PENDING))
                .switchIfEmpty(Mono.defer(() -> soldOut(tags)));
    }

    private record Given(int donor, String id, long amount, long since) {}

    /** Step 1 on the donor; the amount given (0: it has nothing left). */
    Mono<Long> give(String[] tags, int donor, int receiver, String id, long want) {
        String tag = tags[donor];
        return redis.eval(
                        GIVE,
                        new String[] {StockShards.stock(tag), StockShards.queue(tag), StockShards.escrow(tag)},
                        id,
                        Integer.toString(receiver),
                        Long.toString(want))
                .map(reply -> {
                    long given = number(reply, 0);
                    // it gave at most half of what it had, rounded up: given - 1 or more is left (asked again if 0)
                    hints.saw(tags, donor, given == 0 ? 0 : Math.max(1, given - 1));
                    return given;
                });
    }

    /**
     * Steps 2 and 3, each once the step before reached the replicas: the give (written on this connection under
     * {@code since}) before the take, the take before the settle. False when a wait fell short (the transfer stays in
     * escrow for {@link #recover}) or the receiver has no stock hash.
     */
    Mono<Boolean> complete(String[] tags, int donor, int receiver, String id, long amount, long since) {
        return complete(tags, donor, receiver, id, amount, since, false);
    }

    /** As {@link #complete(String[], int, int, String, long, long)}; {@code held}: places a fair start's draw holds. */
    Mono<Boolean> complete(String[] tags, int donor, int receiver, String id, long amount, long since, boolean held) {
        String from = tags[donor];
        String to = tags[receiver];
        return redis.replicated(StockShards.stock(from), since).flatMap(given -> {
            if (!given) {
                return Mono.just(false);
            }
            long taking = redis.epoch();
            return take(tags, receiver, id, amount, held).flatMap(taken -> {
                if (taken < 0) {
                    return Mono.just(false);
                }
                return redis.replicated(StockShards.stock(to), taking)
                        .flatMap(replicated -> replicated
                                ? redis.eval(SETTLE, new String[] {StockShards.escrow(from)}, id)
                                        .thenReturn(true)
                                : Mono.just(false));
            });
        });
    }

    /** Step 2 alone: 1 taken now, 0 taken before, -1 the receiver has no stock hash. */
    Mono<Long> take(String[] tags, int receiver, String id, long amount) {
        return take(tags, receiver, id, amount, false);
    }

    /**
     * Step 2 alone, as above; {@code held}: the amount comes in
     * as places a fair start's draw holds ({@link ShardDraws}).
     */
    Mono<Long> take(String[] tags, int receiver, String id, long amount, boolean held) {
        String to = tags[receiver];
        String[] keys = {StockShards.stock(to), StockShards.received(to)};
        return (held
                        ? redis.eval(TAKE, keys, id, Long.toString(amount), "held")
                        : redis.eval(TAKE, keys, id, Long.toString(amount)))
                .map(reply -> number(reply, 0));
    }

    /**
     * Sold out once every shard was seen with nothing free and nothing in escrow, twice, each shard's transfer count
     * the same both times: between the two looks there was then a moment when every coupon was admitted (a transfer
     * in flight would have shown in its donor's escrow at the first look, or moved a count), and stock only ever moves
     * out of a shard that has some. Every shard is then marked out, so later askers are answered in one step. The
     * members of one instance who find every donor empty at once wait for one check, not one each.
     */
    @SuppressWarnings("unchecked")
    private Mono<Refill> soldOut(String[] tags) {
        return Mono.defer(() -> {
            Mono<Refill>[] mine = new Mono[1];
            return checks.computeIfAbsent(
                    tags[0],
                    key -> mine[0] = check(tags)
                            .doFinally(signal -> checks.remove(key, mine[0]))
                            .cache());
        });
    }

    private Mono<Refill> check(String[] tags) {
        return recover(tags)
                .flatMap(recovered -> lookAll(tags).flatMap(first -> {
                    if (first.stream().anyMatch(look -> !look.exists())) {
                        return Mono.just(Refill.MISSING);
                    }
                    if (recovered.stuck() > 0 && first.stream().allMatch(look -> look.free() <= 0)) {
                        return Mono.just(Refill.PENDING);
                    }
                    // a transfer given since the recovery (its owner at work) shows in an escrow: ask again
                    if (!allOut(first)) {
                        return Mono.just(Refill.RETRY);
                    }
                    return lookAll(tags).flatMap(second -> {
                        if (!allOut(second) || !sameMoves(first, second)) {
                            return Mono.just(Refill.RETRY);
                        }
                        return Flux.range(0, tags.length)
                                .concatMap(shard -> redis.eval(OUT, new String[] {StockShards.stock(tags[shard])}))
                                .then(Mono.just(Refill.SOLD_OUT));
                    });
                }));
    }

    private static boolean allOut(List<Look> looks) {
        return looks.stream()
                .allMatch(look ->
                        look.exists() && look.free() <= 0 && look.escrow().isEmpty());
    }

    private static boolean sameMoves(List<Look> first, List<Look> second) {
        for (int shard = 0; shard < first.size(); shard++) {
            if (first.get(shard).moves() != second.get(shard).moves()) {
                return false;
            }
        }
        return true;
    }

    /**
     * What a recovery did: transfers it completed, and transfers it could not (a replica wait fell short, or the
     * receiver has no stock hash), left in escrow.
     */
    record Recovery(int completed, int stuck) {}

    /** Completes every transfer in any shard's escrow. */
    Mono<Recovery> recover(String[] tags) {
        return lookAll(tags)
                .flatMapMany(Flux::fromIterable)
                .concatMap(look -> Flux.fromIterable(look.escrow().entrySet()).concatMap(entry -> {
                    // receiver:amount, and :held for places a fair start's draw holds (ShardDraws)
                    String[] to = entry.getValue().split(":");
                    // another connection may have written the give: a write of ours on the donor's slot first, so
                    // that this connection's replica wait covers it
                    long since = redis.epoch();
                    return redis.eval(TOUCH, new String[] {StockShards.escrow(tags[look.shard()])}, entry.getKey())
                            .then(complete(
                                    tags,
                                    look.shard(),
                                    Integer.parseInt(to[0]),
                                    entry.getKey(),
                                    Long.parseLong(to[1]),
                                    since,
                                    to.length > 2 && "held".equals(to[2])));
                }))
                .collectList()
                .map(done -> {
                    int completed =
                            (int) done.stream().filter(Boolean::booleanValue).count();
                    return new Recovery(completed, done.size() - completed);
                });
    }

    Mono<List<Look>> lookAll(String[] tags) {
        return Flux.range(0, tags.length)
                .concatMap(shard -> {
                    String tag = tags[shard];
                    return redis.eval(LOOK, new String[] {
                                StockShards.stock(tag), StockShards.queue(tag), StockShards.escrow(tag)
                            })
                            .map(reply -> look(shard, reply));
                })
                .doOnNext(look -> hints.saw(tags, look.shard(), look.free()))
                .collectList();
    }

    private static Look look(int shard, List<Object> reply) {
        Map<String, String> escrow = new LinkedHashMap<>();
        for (int i = 5; i + 1 < reply.size(); i += 2) {
            escrow.put(text(reply, i), text(reply, i + 1));
        }
        return new Look(
                shard,
                number(reply, 0) == 1,
                number(reply, 1),
                number(reply, 2),
                number(reply, 3) == 1,
                number(reply, 4),
                escrow);
    }
}
