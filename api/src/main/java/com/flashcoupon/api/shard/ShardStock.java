package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An event's stock split over K shards, each in a hash slot of its own (docs/architecture.md, "Stock shards"): a
 * member is admitted on their home shard in one script; a home shard that is out pulls stock from another shard by an
 * escrow transfer ({@link ShardTransfers}) and asks again; sold out is said only once every shard was seen out, with
 * nothing in escrow, twice with no transfer between.
 *
 * <p>The mirror deals the stock ({@link ShardMirror}); admission does not call {@link #admit} yet, and the admin API
 * refuses events of more shards than {@code coupon.shards.max-served} (default 1) until the drainer, status, restore
 * and retirement work across shards.
 */
public final class ShardStock {

    /** How scripts reach Redis: the api's {@link ScriptConnection}, or a test's client. */
    public interface Redis {

        Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args);

        /** What the connection's writes are counted under: it changes when the connection is made again. */
        default long epoch() {
            return 0;
        }

        /**
         * Whether this connection's writes so far to {@code key}'s primary reached the replicas the deployment asks for
         * ({@code coupon.redis.min-replicas}), the connection having stayed the one of {@code since} ({@link
         * #epoch}); true at once when it asks for none.
         */
        default Mono<Boolean> replicated(String key, long since) {
            return Mono.just(true);
        }
    }

    public enum Outcome {
        /** a shard has no stock hash: the event is not mirrored (or Redis lost it) */
        MISSING,
        ADMITTED,
        ASKED_BEFORE,
        SOLD_OUT
    }

    /**
     * An admission's answer: the member's home shard and, when admitted, their sequence on it and the time of their
     * admission (microseconds, by the shard's primary's clock; 0 otherwise).
     */
    public record Result(Outcome outcome, int shard, long sequence, long time) {

        Result(Outcome outcome, int shard) {
            this(outcome, shard, 0, 0);
        }
    }

    /**
     * A member whose home is out while stock is in escrow that cannot be moved now (its replica wait fell short):
     * neither admitted nor sold out can be said yet; the api answers 503, and asking again tells.
     */
    public static final class Unsettled extends RuntimeException {

        Unsettled(int home) {
            super("stock is in escrow and cannot be moved to shard " + home + " now (replicas behind)");
        }
    }

    static final ScriptConnection.Script INIT = script("shard_init.lua");
    static final ScriptConnection.Script ADMIT = script("shard_admit.lua");

    /** Refills tried for one admission before it fails: each means another member took what was moved. */
    static final int MAX_REFILLS = 10_000;

    private final Redis redis;
    private final ShardTransfers transfers;
    private final Map<Long, String[]> tags = new ConcurrentHashMap<>();

    public ShardStock(Redis redis) {
        this.redis = redis;
        this.transfers = new ShardTransfers(redis);
    }

    static ScriptConnection.Script script(String name) {
        return ScriptConnection.Script.of(LuaScripts.text("scripts/" + name));
    }

    /** The shards' hash tags, computed once per event and shard count. */
    public String[] tags(long couponId, int shards) {
        String[] known = tags.get(couponId);
        if (known != null && known.length == shards) {
            return known;
        }
        String[] found = new String[shards];
        for (int shard = 0; shard < shards; shard++) {
            found[shard] = StockShards.tag(couponId, shards, shard);
        }
        tags.put(couponId, found);
        return found;
    }

    /**
     * Deals the stock: shard i gets {@code total / K}, one more for the first {@code total mod K}; each share is set
     * only once, so dealing again never undoes a transfer.
     */
    public Mono<Void> init(long couponId, int shards, int total) {
        String[] tags = tags(couponId, shards);
        return Flux.range(0, shards)
                .concatMap(shard -> redis.eval(
                        INIT,
                        new String[] {StockShards.stock(tags[shard])},
                        Integer.toString(total / shards + (shard < total % shards ? 1 : 0)),
                        Integer.toString(total)))
                .then();
    }

    /** Admits the member on their home shard, moving stock there when it is out and another shard is not. */
    public Mono<Result> admit(long couponId, int shards, String memberId) {
        return admitAt(tags(couponId, shards), StockShards.home(memberId, shards), memberId, 0);
    }

    private Mono<Result> admitAt(String[] tags, int home, String memberId, int refills) {
        String tag = tags[home];
        return redis.eval(
                        ADMIT,
                        new String[] {
                            StockShards.stock(tag), StockShards.queue(tag), StockShards.seq(tag), StockShards.times(tag)
                        },
                        memberId)
                .flatMap(reply -> {
                    int outcome = (int) number(reply, 0);
                    return switch (outcome) {
                        case 0 -> Mono.just(new Result(Outcome.MISSING, home));
                        case 1 -> {
                            transfers.hints().saw(tags, home, number(reply, 2));
                            yield Mono.just(new Result(Outcome.ADMITTED, home, number(reply, 1), number(reply, 3)));
                        }
                        case 2 -> Mono.just(new Result(Outcome.ASKED_BEFORE, home, number(reply, 1), number(reply, 3)));
                        case 3 -> Mono.just(new Result(Outcome.SOLD_OUT, home));
                        case 11 -> {
                            if (refills >= MAX_REFILLS) {
                                yield Mono.error(new IllegalStateException(
                                        "no stock reached shard " + home + " in " + refills + " refills"));
                            }
                            long total = number(reply, 3);
                            transfers.hints().saw(tags, home, 0);
                            yield transfers
                                    .refill(tags, home, want(total, tags.length))
                                    .flatMap(refill -> switch (refill) {
                                        case SOLD_OUT -> Mono.just(new Result(Outcome.SOLD_OUT, home));
                                        case MISSING -> Mono.just(new Result(Outcome.MISSING, home));
                                        case PENDING -> Mono.error(new Unsettled(home));
                                        case MOVED, RETRY -> admitAt(tags, home, memberId, refills + 1);
                                    });
                        }
                        default -> Mono.error(new IllegalStateException("shard_admit.lua answered " + outcome));
                    };
                });
    }

    /**
     * How much a shard that is out asks a donor for: an eighth of an even share (at least 1). The donor gives at most
     * half of what it has left, so near the end coupons move one at a time, to whoever asks.
     */
    static long want(long total, int shards) {
        return Math.max(1, total / (8L * shards));
    }

    /** Completes every transfer left in escrow (an instance died between its steps); how many it completed. */
    public Mono<Integer> recover(long couponId, int shards) {
        return transfers.recover(tags(couponId, shards)).map(ShardTransfers.Recovery::completed);
    }

    /** Every shard as it is now (the sold-out check's view). */
    public Mono<List<ShardTransfers.Look>> look(long couponId, int shards) {
        return transfers.lookAll(tags(couponId, shards));
    }

    /** The first half of a transfer alone, as an instance that dies right after it leaves it (for tests). */
    public Mono<Long> giveOnly(long couponId, int shards, int donor, int receiver, long want) {
        return transfers.give(
                tags(couponId, shards), donor, receiver, UUID.randomUUID().toString(), want);
    }
}
