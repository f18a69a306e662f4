package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.StockShards;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A fair start across stock shards (docs/architecture.md, "A fair start across shards"). The window's entrants are kept
 * on their home shard's draw (shard_admit.lua); the draw is one, over all of them, made by the draw job as for one
 * shard. What is particular to shards is here:
 *
 * <ol>
 *   <li><b>Sizing</b> ({@link #size}), once the window is over, by the first newcomer of any shard (shard_admit.lua's
 *       outcome 13) or by the draw job, whichever comes first: every shard is closed ({@code shard_draw_close.lua}: no
 *       entrant more, nothing admitted or given) and read; a plan is kept once on shard 0 ({@code
 *       shard_draw_plan.lua}): the draw's places {@code P = min(room of all shards, entrants)}, the places each shard
 *       holds for it (its own entrants first, then the rest where room is left) and the sequences it sets aside for
 *       its entrants the draw may place ({@code min(its entrants, P)}); each shard then applies its part ({@code
 *       shard_draw_size.lua}) and admits newcomers from the room left. Every instance applies the plan kept, whoever
 *       wrote it, so a sizing run twice, or by two instances at once, holds the same places.
 *   <li><b>Writing the draw</b> ({@link #write}), once MySQL recorded it: the places held move, by escrow, to the shards
 *       where the placed members are at home ({@code shard_draw_give.lua}, then {@code shard_take.lua} with the places
 *       held; once per donor and receiver whoever runs it); each member goes into their home shard's queue with a
 *       sequence set aside and a time before drawAt in the order of their places ({@code shard_draw_place.lua}); each
 *       shard is marked drawn ({@code shard_draw_finish.lua}). Every step is idempotent, so the next pass of any
 *       instance finishes what one that died began.
 * </ol>
 *
 * The caps still sum to the stock at every step (held places are in a cap, or in an escrow counted in none), and the
 * drainer publishes nothing of the event until the draw is marked made on its meta (drain_claim.lua).
 */
public final class ShardDraws {

    static final ScriptConnection.Script CLOSE = ShardStock.script("shard_draw_close.lua");
    static final ScriptConnection.Script PLAN = ShardStock.script("shard_draw_plan.lua");
    static final ScriptConnection.Script SIZE = ShardStock.script("shard_draw_size.lua");
    static final ScriptConnection.Script GIVE = ShardStock.script("shard_draw_give.lua");
    static final ScriptConnection.Script PLACE = ShardStock.script("shard_draw_place.lua");
    static final ScriptConnection.Script FINISH = ShardStock.script("shard_draw_finish.lua");
    static final ScriptConnection.Script COUNT = ShardStock.script("shard_draw_count.lua");

    /** Members written per call. */
    static final int PAGE = 2_000;

    /**
     * The sizing as kept: the entrants of every shard, the draw's places, and per shard the places it holds, the
     * sequences it set aside and the first of them.
     */
    public record Sized(long entrants, long places, long[] held, long[] reserved, long[] firstSequence) {}

    /**
     * A draw's counts across shards, for the event's views: its entrants and the places it would give (so far, or as
     * the sizing froze them), and the places held on the shards and not written in yet.
     */
    public record Counts(long entrants, long places, long held) {}

    /** What a shard showed when the sizing closed it. */
    record Closed(boolean exists, long entrants, long room) {}

    private final ShardStock.Redis redis;
    private final ShardStock stock;
    private final ShardTransfers transfers;

    ShardDraws(ShardStock.Redis redis, ShardStock stock, ShardTransfers transfers) {
        this.redis = redis;
        this.stock = stock;
        this.transfers = transfers;
    }

    /** Closes every shard's window and holds the draw's places on them as the plan kept on shard 0 says. */
    public Mono<Sized> size(long couponId, int shards) {
        String[] tags = stock.tags(couponId, shards);
        return Flux.range(0, shards)
                .concatMap(shard -> redis.eval(CLOSE, new String[] {
                            StockShards.stock(tags[shard]),
                            StockShards.queue(tags[shard]),
                            StockShards.draw(tags[shard])
                        })
                        .map(reply -> new Closed(number(reply, 0) == 1, number(reply, 1), number(reply, 2))))
                .collectList()
                .flatMap(closed -> {
                    if (closed.stream().anyMatch(shard -> !shard.exists())) {
                        return Mono.error(new IllegalStateException("coupon " + couponId
                                + ": a shard has no stock; the draw is sized once it is mirrored"));
                    }
                    return redis.eval(PLAN, new String[] {StockShards.stock(tags[0])}, plan(closed))
                            .map(reply -> text(reply, 0));
                })
                .flatMap(kept -> apply(tags, kept));
    }

    /** The draw's counts (a call per shard): what the event's views show while it is not made. */
    public Mono<Counts> counts(long couponId, int shards) {
        String[] tags = stock.tags(couponId, shards);
        return Flux.range(0, shards)
                .concatMap(shard ->
                        redis.eval(COUNT, new String[] {StockShards.stock(tags[shard]), StockShards.draw(tags[shard])}))
                .collectList()
                .map(replies -> {
                    long entrants = 0;
                    long held = 0;
                    for (List<Object> reply : replies) {
                        entrants += number(reply, 0);
                        held += number(reply, 1);
                    }
                    List<Object> first = replies.getFirst();
                    return number(first, 2) == 1
                            ? new Counts(number(first, 3), number(first, 4), held)
                            : new Counts(entrants, Math.min(number(first, 5), entrants), held);
                });
    }

    /**
     * The plan from what the shards showed: {@code entrants,places,held 0,reserved 0,held 1,...}. Each shard holds its
     * own entrants' share first ({@code min(room, entrants)}); what the draw places beyond that is held where room is
     * left, lower shards first. The sum held is the draw's places.
     */
    static String plan(List<Closed> closed) {
        long entrants = 0;
        long room = 0;
        for (Closed shard : closed) {
            entrants += shard.entrants();
            room += Math.max(0, shard.room());
        }
        long places = Math.min(room, entrants);
        long[] held = new long[closed.size()];
        long left = places;
        for (int shard = 0; shard < closed.size(); shard++) {
            held[shard] = Math.min(
                    Math.max(0, closed.get(shard).room()), closed.get(shard).entrants());
            left -= held[shard];
        }
        for (int shard = 0; shard < closed.size() && left > 0; shard++) {
            long more = Math.min(left, Math.max(0, closed.get(shard).room()) - held[shard]);
            held[shard] += more;
            left -= more;
        }
        StringBuilder plan = new StringBuilder().append(entrants).append(',').append(places);
        for (int shard = 0; shard < closed.size(); shard++) {
            plan.append(',')
                    .append(held[shard])
                    .append(',')
                    .append(Math.min(closed.get(shard).entrants(), places));
        }
        return plan.toString();
    }

    private Mono<Sized> apply(String[] tags, String kept) {
        long[] figures =
                Arrays.stream(kept.split(",")).mapToLong(Long::parseLong).toArray();
        int shards = tags.length;
        if (figures.length != 2 + 2 * shards) {
            return Mono.error(new IllegalStateException("a draw plan for another shard count: " + kept));
        }
        long[] held = new long[shards];
        long[] reserved = new long[shards];
        for (int shard = 0; shard < shards; shard++) {
            held[shard] = figures[2 + 2 * shard];
            reserved[shard] = figures[3 + 2 * shard];
        }
        return Flux.range(0, shards)
                .concatMap(shard -> redis.eval(
                                SIZE,
                                new String[] {StockShards.stock(tags[shard]), StockShards.seq(tags[shard])},
                                Long.toString(held[shard]),
                                Long.toString(reserved[shard]),
                                Long.toString(figures[0]),
                                Long.toString(figures[1]))
                        .map(reply -> number(reply, 0)))
                .collectList()
                .map(first -> new Sized(
                        figures[0],
                        figures[1],
                        held,
                        reserved,
                        first.stream().mapToLong(Long::longValue).toArray()));
    }

    /**
     * Writes a recorded draw into the shards: {@code placed} in the order of their places (place 1 first), drawAt in
     * epoch ms. Idempotent.
     */
    public Mono<Void> write(long couponId, int shards, Sized sized, List<String> placed, long drawAtMillis) {
        String[] tags = stock.tags(couponId, shards);
        List<List<String[]>> byHome = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            byHome.add(new ArrayList<>());
        }
        // times before drawAt, one microsecond apart in the order of the places: published first, in that order
        long first = drawAtMillis * 1000 - placed.size();
        for (int place = 0; place < placed.size(); place++) {
            String member = placed.get(place);
            int home = StockShards.home(member, shards);
            List<String[]> mine = byHome.get(home);
            if (mine.size() >= sized.reserved()[home]) {
                return Mono.error(new IllegalStateException("coupon " + couponId + ": the draw places more members at"
                        + " home on shard " + home + " than its entrants there"));
            }
            mine.add(new String[] {
                Long.toString(sized.firstSequence()[home] + mine.size()), Long.toString(first + place), member
            });
        }
        long[] wanted = byHome.stream().mapToLong(List::size).toArray();
        return moves(couponId, tags, sized.held(), wanted)
                .thenMany(Flux.range(0, shards).concatMap(shard -> place(tags[shard], byHome.get(shard))))
                .thenMany(Flux.range(0, shards)
                        .concatMap(shard -> redis.eval(FINISH, new String[] {StockShards.stock(tags[shard])})))
                .then();
    }

    /**
     * The held places moved to where the placed members are at home: each shard holding more than its members takes,
     * in shard order, gives to the first shards short of theirs. Deterministic, so a second run moves the same amounts
     * under the same ids (given once: shard_draw_give.lua; taken once: shard_take.lua).
     */
    private Mono<Void> moves(long couponId, String[] tags, long[] held, long[] wanted) {
        long[] surplus = new long[tags.length];
        for (int shard = 0; shard < tags.length; shard++) {
            surplus[shard] = held[shard] - wanted[shard];
        }
        List<long[]> moves = new ArrayList<>();
        int receiver = 0;
        for (int donor = 0; donor < tags.length; donor++) {
            while (surplus[donor] > 0) {
                while (receiver < tags.length && surplus[receiver] >= 0) {
                    receiver++;
                }
                if (receiver == tags.length) {
                    break; // the draw placed fewer than the places held: what is left is freed when each shard finishes
                }
                long amount = Math.min(surplus[donor], -surplus[receiver]);
                moves.add(new long[] {donor, receiver, amount});
                surplus[donor] -= amount;
                surplus[receiver] += amount;
            }
        }
        return Flux.fromIterable(moves)
                .concatMap(move -> {
                    int from = (int) move[0];
                    int to = (int) move[1];
                    String id = "draw:" + couponId + ":" + from + ":" + to;
                    long since = redis.epoch();
                    return redis.eval(
                                    GIVE,
                                    new String[] {StockShards.stock(tags[from]), StockShards.escrow(tags[from])},
                                    id,
                                    Integer.toString(to),
                                    Long.toString(move[2]))
                            .flatMap(given -> {
                                if (number(given, 0) < 0) {
                                    return Mono.error(new IllegalStateException("coupon " + couponId + ": shard " + from
                                            + " has no stock; the draw is written once it is dealt again"));
                                }
                                // given before, perhaps by an instance that died: a write of ours on the donor's
                                // slot first, so that this connection's replica wait covers it (as recover does)
                                return number(given, 0) == 1
                                        ? Mono.just(true)
                                        : redis.eval(
                                                        ShardTransfers.TOUCH,
                                                        new String[] {StockShards.escrow(tags[from])},
                                                        id)
                                                .thenReturn(true);
                            })
                            .then(Mono.defer(() -> transfers.complete(tags, from, to, id, move[2], since, true)))
                            .flatMap(done -> done
                                    ? Mono.empty()
                                    : Mono.error(new IllegalStateException("coupon " + couponId + ": the draw's places"
                                            + " moving from shard " + from + " to " + to
                                            + " are in escrow; written on the next pass")));
                })
                .then();
    }

    private Mono<Void> place(String tag, List<String[]> members) {
        String[] keys = {StockShards.stock(tag), StockShards.queue(tag), StockShards.times(tag)};
        List<String[]> pages = new ArrayList<>();
        for (int from = 0; from < members.size(); from += PAGE) {
            List<String> args = new ArrayList<>();
            for (String[] member : members.subList(from, Math.min(members.size(), from + PAGE))) {
                args.addAll(Arrays.asList(member));
            }
            pages.add(args.toArray(String[]::new));
        }
        return Flux.fromIterable(pages)
                .concatMap(args -> redis.eval(PLACE, keys, args))
                .flatMap(added -> number(added, 0) < 0
                        ? Mono.error(new IllegalStateException(
                                tag + " has no stock; the draw is written once the shard is dealt again"))
                        : Mono.just(added))
                .then();
    }
}
