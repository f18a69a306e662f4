package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * First come across shards (docs/architecture.md, "Stock shards"): the next batch to publish is taken from every
 * shard's queue after its cursor and merged by admission time, up to the earliest of the shards' clocks when they were
 * read (the horizon), strictly before it: an admission not read yet on any shard is at or after the horizon, so nothing published later can
 * have been admitted before something published now, by the primaries' clocks. Each shard's cursor then moves past its
 * own members of the batch, once Kafka acknowledged it.
 */
public final class ShardOrder {

    static final ScriptConnection.Script PEEK = ShardStock.script("shard_peek.lua");
    static final ScriptConnection.Script ADVANCE = ShardStock.script("shard_advance.lua");
    static final ScriptConnection.Script MARKS = ShardStock.script("shard_marks.lua");

    /** One admission to publish: the shard, the member, its sequence on the shard, its time (us). */
    public record Entry(int shard, String member, long sequence, long time) {}

    /**
     * A batch in admission-time order; {@code horizon} the earliest shard clock it was read under, {@code waiting} the
     * entries read that come after it (published by a later batch); and, over every shard when read, the members
     * published ({@code cursor}: the cursors' sum), admitted, done, refused as sold out, and transfers in escrow; and
     * each shard's admitted and its clock (µs) when read; and {@code back}, the members a restore's base counted that
     * came back into their shard's queue since (shard_results.lua), over every shard; {@code again}, the members the
     * base counted who hold a second place since (asked again after the restore before they were decided);
     * {@code publishedByShard}, each shard's cursor less its back when read (what its publication mark counts);
     * {@code doneByShard}, each shard's members done when read.
     */
    public record Batch(
            List<Entry> entries,
            long horizon,
            int waiting,
            long cursor,
            long admitted,
            long done,
            long soldOut,
            long escrowed,
            long[] admittedByShard,
            long[] clockByShard,
            long back,
            long again,
            long[] publishedByShard,
            long[] doneByShard) {

        /** The publication sequence of the batch's entry {@code index}: what every shard published before it, plus one. */
        public long sequence(int index) {
            return cursor + index + 1;
        }
    }

    private final ShardStock.Redis redis;
    private final ShardStock stock;

    public ShardOrder(ShardStock.Redis redis, ShardStock stock) {
        this.redis = redis;
        this.stock = stock;
    }

    /** Every shard's totals (what {@link Batch} counts), reading no entries: one call per shard. */
    public Mono<Batch> totals(long couponId, int shards) {
        return next(couponId, shards, 0);
    }

    /**
     * Up to {@code max} admissions, the earliest first, none admitted after the horizon. Each shard is read for twice
     * its even share of {@code max}; a batch ends where a shard's entries read run out while it holds more.
     */
    public Mono<Batch> next(long couponId, int shards, int max) {
        return next(couponId, shards, max, false);
    }

    /**
     * As above; with {@code touch}, each shard's read also writes its cursor as it is, so that a replica wait on this
     * connection afterwards covers every admission its primary took before the read.
     */
    public Mono<Batch> next(long couponId, int shards, int max, boolean touch) {
        String[] tags = stock.tags(couponId, shards);
        // each shard's share of a batch, twice over: admissions spread evenly over the shards by the members' homes
        int perShard = shards == 1 ? max : Math.min(max, 2 * max / shards + 8);
        // every shard at once (on a cluster, each on its own primary), in shard order: one round trip, not K
        return Flux.range(0, shards)
                .flatMapSequential(shard -> {
                    String tag = tags[shard];
                    return redis.eval(
                                    PEEK,
                                    new String[] {
                                        StockShards.queue(tag),
                                        StockShards.times(tag),
                                        StockShards.cursor(tag),
                                        StockShards.done(tag),
                                        StockShards.stats(tag),
                                        StockShards.escrow(tag),
                                        StockShards.stock(tag)
                                    },
                                    Integer.toString(perShard),
                                    touch ? "1" : "0")
                            .map(reply -> peeked(shard, reply));
                })
                .collectList()
                .map(peeks -> {
                    long horizon = peeks.stream().mapToLong(Peek::now).min().orElse(0);
                    // a merge of the shards' queues, each in its own rank order (so a batch is a prefix of each,
                    // even if a primary's clock stepped back), the earliest head first
                    int[] next = new int[peeks.size()];
                    int read = peeks.stream()
                            .mapToInt(peek -> peek.entries().size())
                            .sum();
                    List<Entry> batch = new ArrayList<>();
                    while (batch.size() < max) {
                        Entry earliest = null;
                        for (int shard = 0; shard < peeks.size(); shard++) {
                            List<Entry> entries = peeks.get(shard).entries();
                            Peek peek = peeks.get(shard);
                            if (next[shard] == entries.size() && peek.cursor() + entries.size() < peek.admitted()) {
                                // this shard holds more than was read: what it holds next may come before any
                                // other head, so the batch ends here
                                earliest = null;
                                break;
                            }
                            if (next[shard] < entries.size()) {
                                Entry head = entries.get(next[shard]);
                                if (earliest == null || head.time() < earliest.time()) {
                                    earliest = head;
                                }
                            }
                        }
                        if (earliest == null || earliest.time() >= horizon) {
                            break;
                        }
                        batch.add(earliest);
                        next[earliest.shard()]++;
                    }
                    return new Batch(
                            batch,
                            horizon,
                            read - batch.size(),
                            peeks.stream().mapToLong(Peek::cursor).sum(),
                            peeks.stream().mapToLong(Peek::admitted).sum(),
                            peeks.stream().mapToLong(Peek::done).sum(),
                            peeks.stream().mapToLong(Peek::soldOut).sum(),
                            peeks.stream().mapToLong(Peek::escrowed).sum(),
                            peeks.stream().mapToLong(Peek::admitted).toArray(),
                            peeks.stream().mapToLong(Peek::now).toArray(),
                            peeks.stream().mapToLong(Peek::back).sum(),
                            peeks.stream().mapToLong(Peek::again).sum(),
                            peeks.stream()
                                    .mapToLong(peek -> peek.cursor() - peek.back())
                                    .toArray(),
                            peeks.stream().mapToLong(Peek::done).toArray());
                });
    }

    /** The same batch cut to its first {@code count} entries (what the rate allows of it now). */
    public static Batch first(Batch batch, int count) {
        if (count >= batch.entries().size()) {
            return batch;
        }
        return new Batch(
                batch.entries().subList(0, count),
                batch.horizon(),
                batch.waiting() + batch.entries().size() - count,
                batch.cursor(),
                batch.admitted(),
                batch.done(),
                batch.soldOut(),
                batch.escrowed(),
                batch.admittedByShard(),
                batch.clockByShard(),
                batch.back(),
                batch.again(),
                batch.publishedByShard(),
                batch.doneByShard());
    }

    /**
     * Raises the publication marks of the shards the batch takes entries from, in the event's meta (shard_marks.lua):
     * before the cursors move, so that a mark never stands below what a shard published.
     */
    public Mono<Void> mark(long couponId, int shards, Batch batch) {
        long[] marks = batch.publishedByShard().clone();
        Set<Integer> touched = new TreeSet<>();
        batch.entries().forEach(entry -> {
            marks[entry.shard()]++;
            touched.add(entry.shard());
        });
        if (touched.isEmpty()) {
            return Mono.empty();
        }
        List<String> args = new ArrayList<>();
        args.add(Integer.toString(shards));
        for (int shard : touched) {
            args.add(Integer.toString(shard));
            args.add(Long.toString(marks[shard]));
        }
        return redis.eval(MARKS, new String[] {CouponKeys.meta(couponId)}, args.toArray(String[]::new))
                .then();
    }

    /**
     * Within one shard, its entries are read in rank order, so a batch takes a prefix of each shard's entries: the
     * cursor moves past the last.
     */
    public Mono<Void> advance(long couponId, int shards, Batch batch) {
        String[] tags = stock.tags(couponId, shards);
        Map<Integer, String> last = new LinkedHashMap<>();
        batch.entries().forEach(entry -> last.put(entry.shard(), entry.member()));
        return Flux.fromIterable(last.entrySet())
                .concatMap(shard -> {
                    String tag = tags[shard.getKey()];
                    return redis.eval(
                            ADVANCE, new String[] {StockShards.queue(tag), StockShards.cursor(tag)}, shard.getValue());
                })
                .then();
    }

    private record Peek(
            long now,
            long cursor,
            long admitted,
            long done,
            long soldOut,
            long escrowed,
            long back,
            long again,
            List<Entry> entries) {}

    private static Peek peeked(int shard, List<Object> reply) {
        List<Entry> entries = new ArrayList<>();
        for (int i = 8; i + 2 < reply.size(); i += 3) {
            entries.add(new Entry(shard, text(reply, i), number(reply, i + 1), number(reply, i + 2)));
        }
        return new Peek(
                number(reply, 0),
                number(reply, 1),
                number(reply, 2),
                number(reply, 3),
                number(reply, 4),
                number(reply, 5),
                number(reply, 6),
                number(reply, 7),
                entries);
    }
}
