package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import reactor.core.publisher.Mono;

/**
 * An event's stock split over K shards, each in a hash slot of its own (docs/architecture.md, "Stock shards"): a
 * member is admitted on their home shard in one script; a home shard that is out pulls stock from another shard by an
 * escrow transfer ({@link ShardTransfers}) and asks again; sold out is said only once every shard was seen out, with
 * nothing in escrow, twice with no transfer between.
 *
 * <p>The mirror deals the stock and writes the event's settings on every shard ({@link ShardMirror}); the admission
 * endpoint admits here for an event of more than one shard, which the admin API takes up to {@code
 * coupon.shards.max-served} (default 64).
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
        /** a shard has no stock hash or no settings: the event is not mirrored (or Redis lost it) */
        MISSING,
        ADMITTED,
        ASKED_BEFORE,
        SOLD_OUT,
        /** before {@code openAt}: {@link Result#detail} is openAt (epoch ms) */
        NOT_OPEN_YET,
        CLOSED,
        /** {@link Result#detail}: the refusing limit (1 member, 2 address); {@link Result#waitMillis} the wait */
        RATE_LIMITED,
        NOT_ANNOUNCED,
        /** {@link Result#detail}: the gate's reason (gate.lua), as for an event of one shard */
        GATE_REFUSED,
        /** the event has another shard count than the one asked with: {@link Result#detail} is the one it has */
        RESHARDED,
        /**
         * entered a fair start's draw (within its window): {@link Result#detail} the entrants, {@link Result#time}
         * drawAt, {@link Result#sequence} the places the draw would give ({@link ShardDraws})
         */
        DRAW_ENTERED,
        /** in the draw, asked before it is made: as {@link #DRAW_ENTERED}, {@link Result#result} 'DRAWING' once closed */
        DRAW_ASKED_BEFORE
    }

    /**
     * An admission's answer: the member's home shard; when admitted or asked before, their sequence on it and the time
     * of their admission (microseconds, by the shard's primary's clock; 0 otherwise); the detail of a refusal (see
     * {@link Outcome}; when admitted, the members the home shard admitted before them), the event's rate, the member's result when they have one ('' otherwise), the gate's
     * COUNT_ONLY rules that would have refused a member just admitted (gate.lua), and whether a fair start's draw was
     * not made yet when they were (their place then counts the places it holds: read exactly); and, when admitted, the
     * home shard's members done then (-1 otherwise).
     */
    public record Result(
            Outcome outcome,
            int shard,
            long sequence,
            long time,
            long detail,
            long waitMillis,
            int rate,
            String result,
            long gateWouldRefuse,
            boolean drawPending,
            long homeDone) {

        Result(Outcome outcome, int shard) {
            this(outcome, shard, 0, 0, 0, 0, 0, "", 0, false, -1);
        }

        Result(
                Outcome outcome,
                int shard,
                long sequence,
                long time,
                long detail,
                long waitMillis,
                int rate,
                String result,
                long gateWouldRefuse) {
            this(outcome, shard, sequence, time, detail, waitMillis, rate, result, gateWouldRefuse, false, -1);
        }
    }

    /**
     * What admission runs with besides the member: the address its limit is charged to ('' when that limit is off),
     * the limits' rates and bursts (the member's, then the address's over the event's shards: {@link
     * #addressShare}), the member's claims and the proof's check (gate.lua's ARGV 6 and 7).
     */
    public record Request(String address, List<String> limits, String claims, String proof) {

        /** No limits, no claims, no proof: what tests of the stock alone ask with. */
        public static final Request PLAIN = new Request("", List.of("0", "0", "0", "0"), "", "");

        /** The same request once charged: asking again after a transfer does not pay a second time. */
        Request charged() {
            return new Request(address, List.of("0", "0", "0", "0"), claims, proof);
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

    /** shard_admit.lua with the rate limits and the gate in front, as admit.lua has them. */
    static final ScriptConnection.Script REFUSED = script("shard_refused.lua");

    static final ScriptConnection.Script ADMIT = ScriptConnection.Script.of(
            LuaScripts.text("scripts/gate.lua") + RateLimits.withLimits("scripts/shard_admit.lua"));

    /** Refills tried for one admission before it fails: each means another member took what was moved. */
    static final int MAX_REFILLS = 10_000;

    private final Redis redis;
    private final ShardTransfers transfers;
    private final ShardDeal deal;
    private final ShardDraws draws;
    private final Map<Long, String[]> tags = new ConcurrentHashMap<>();

    public ShardStock(Redis redis) {
        this.redis = redis;
        this.transfers = new ShardTransfers(redis);
        this.deal = new ShardDeal(redis, this);
        this.draws = new ShardDraws(redis, this, transfers);
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

    /** Deals the stock and keeps the event's settings on its shards ({@link ShardDeal}). */
    public ShardDeal deal() {
        return deal;
    }

    /** A fair start across the shards: the sizing at the window's close, and the draw written ({@link ShardDraws}). */
    public ShardDraws draws() {
        return draws;
    }

    /** Admits the member with no limits and no gate (tests of the stock alone). */
    public Mono<Result> admit(long couponId, int shards, String memberId) {
        return admit(couponId, shards, memberId, Request.PLAIN);
    }

    /**
     * Admits the member on their home shard, moving stock there when it is out and another shard is not; the limits
     * and the gate are checked in the same step (shard_admit.lua).
     */
    public Mono<Result> admit(long couponId, int shards, String memberId, Request request) {
        return admitAt(couponId, tags(couponId, shards), StockShards.home(memberId, shards), memberId, request, 0);
    }

    /**
     * The address's share of its limit on each shard: the address's members spread over the shards by their home, so
     * each shard allows {@code 1/K} of the rate and of the burst (at least one request a second and a burst of one).
     */
    public static List<String> addressShare(List<String> limits, int shards) {
        long rate = Long.parseLong(limits.get(2));
        if (rate <= 0 || shards <= 1) {
            return limits;
        }
        long burst = Long.parseLong(limits.get(3));
        return List.of(
                limits.get(0),
                limits.get(1),
                Long.toString(Math.max(1, rate / shards)),
                Long.toString(Math.max(1, burst / shards)));
    }

    private Mono<Result> admitAt(
            long couponId, String[] tags, int home, String memberId, Request request, int refills) {
        String tag = tags[home];
        String[] keys = {
            StockShards.stock(tag),
            StockShards.queue(tag),
            StockShards.seq(tag),
            StockShards.times(tag),
            StockShards.memberLimit(tag, memberId),
            StockShards.addressLimit(tag, request.address()),
            StockShards.stats(tag),
            StockShards.eligible(tag),
            StockShards.wouldRefuse(tag, "list"),
            StockShards.wouldRefuse(tag, "claims"),
            StockShards.draw(tag),
            StockShards.result(tag),
            StockShards.done(tag)
        };
        List<String> limits = request.limits();
        return redis.eval(
                        ADMIT,
                        keys,
                        memberId,
                        limits.get(0),
                        limits.get(1),
                        limits.get(2),
                        limits.get(3),
                        request.claims(),
                        request.proof(),
                        Integer.toString(tags.length))
                .flatMap(reply -> {
                    int outcome = (int) number(reply, 0);
                    int rate = (int) number(reply, 4);
                    return switch (outcome) {
                        case 0 -> Mono.just(new Result(Outcome.MISSING, home));
                        case 1 -> {
                            transfers.hints().saw(tags, home, number(reply, 2));
                            yield Mono.just(new Result(
                                    Outcome.ADMITTED,
                                    home,
                                    number(reply, 1),
                                    number(reply, 3),
                                    number(reply, 6),
                                    0,
                                    rate,
                                    "",
                                    number(reply, 5),
                                    reply.size() > 7 && number(reply, 7) == 1,
                                    reply.size() > 8 ? number(reply, 8) : -1));
                        }
                        case 2 ->
                            Mono.just(new Result(
                                    Outcome.ASKED_BEFORE,
                                    home,
                                    number(reply, 1),
                                    number(reply, 3),
                                    0,
                                    0,
                                    rate,
                                    text(reply, 5),
                                    0));
                        case 3 -> Mono.just(refusal(Outcome.SOLD_OUT, home, 0, 0, rate));
                        case 4 -> Mono.just(refusal(Outcome.NOT_OPEN_YET, home, number(reply, 1), 0, rate));
                        case 5 -> Mono.just(refusal(Outcome.CLOSED, home, 0, 0, rate));
                        case 6 ->
                            Mono.just(refusal(Outcome.RATE_LIMITED, home, number(reply, 1), number(reply, 2), rate));
                        case 9 -> Mono.just(refusal(Outcome.NOT_ANNOUNCED, home, 0, 0, rate));
                        case 10 -> Mono.just(refusal(Outcome.GATE_REFUSED, home, number(reply, 1), 0, rate));
                        case 12 -> Mono.just(refusal(Outcome.RESHARDED, home, number(reply, 1), 0, rate));
                        case 7, 8 ->
                            Mono.just(new Result(
                                    outcome == 7 ? Outcome.DRAW_ENTERED : Outcome.DRAW_ASKED_BEFORE,
                                    home,
                                    number(reply, 5),
                                    number(reply, 2),
                                    number(reply, 1),
                                    0,
                                    rate,
                                    text(reply, 6),
                                    0));
                        case 13 -> {
                            if (refills >= MAX_REFILLS) {
                                yield Mono.error(new IllegalStateException("the draw's places were not held"));
                            }
                            // the window is closed and the draw's places not held yet: hold them, ask again (charged)
                            yield draws.size(couponId, tags.length)
                                    .then(Mono.defer(() ->
                                            admitAt(couponId, tags, home, memberId, request.charged(), refills + 1)));
                        }
                        case 11 -> {
                            if (refills >= MAX_REFILLS) {
                                yield Mono.error(new IllegalStateException(
                                        "no stock reached shard " + home + " in " + refills + " refills"));
                            }
                            long total = number(reply, 3);
                            transfers.hints().saw(tags, home, 0);
                            // the limits were charged by this call: asking again after the transfer does not pay twice
                            Request charged = request.charged();
                            yield transfers
                                    .refill(tags, home, want(total, tags.length))
                                    .flatMap(refill -> switch (refill) {
                                        case SOLD_OUT ->
                                            redis.eval(REFUSED, new String[] {StockShards.stats(tag)})
                                                    .thenReturn(refusal(Outcome.SOLD_OUT, home, 0, 0, rate));
                                        case MISSING -> Mono.just(new Result(Outcome.MISSING, home));
                                        case PENDING -> Mono.error(new Unsettled(home));
                                        case MOVED, RETRY ->
                                            admitAt(couponId, tags, home, memberId, charged, refills + 1);
                                    });
                        }
                        default -> Mono.error(new IllegalStateException("shard_admit.lua answered " + outcome));
                    };
                });
    }

    private static Result refusal(Outcome outcome, int shard, long detail, long waitMillis, int rate) {
        return new Result(outcome, shard, 0, 0, detail, waitMillis, rate, "", 0);
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
                tags(couponId, shards),
                donor,
                receiver,
                new UUID(
                                ThreadLocalRandom.current().nextLong(),
                                ThreadLocalRandom.current().nextLong())
                        .toString(),
                want);
    }
}
