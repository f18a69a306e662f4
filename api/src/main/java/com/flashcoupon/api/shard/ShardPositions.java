package com.flashcoupon.api.shard;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.StockShards;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A member's place across shards (docs/architecture.md, "Stock shards"): the members admitted before them, by
 * admission time, on every shard, less those done.
 *
 * <p>Read exactly, it costs one call per shard ({@link #place}): what status reads pay. An admission, the hot path, is
 * answered from what this instance last saw of each shard instead, at no call at all: every admission it made tells it
 * its home shard's count at that moment by the shard's clock, and every drain tick tells it every shard's count and
 * the members done ({@link #saw(long, ShardOrder.Batch)}). Another shard's count at the member's own admission time
 * (by the primaries' clocks) is taken between the two sights of it around that time, in proportion: under a crowd the
 * replies of admissions made after this one often come first, so the latest sight alone would count members admitted
 * after the member (measured: estimates 5% to 7% long with six shards). It is off then by the admissions between the two
 * sights, a few at most. Without a sight within {@link #FRESH_MICROS} of the admission of every shard (a quiet event,
 * an instance just started), the admission reads its place exactly.
 */
public final class ShardPositions {

    static final ScriptConnection.Script AHEAD = ShardStock.script("shard_ahead.lua");

    static final ScriptConnection.Script STATUS = ShardStock.script("shard_status.lua");

    static final ScriptConnection.Script LOOKUP = ShardStock.script("shard_lookup.lua");

    /** How far apart (µs, by the primaries' clocks) a sight of a shard and an admission may be for the sight to count. */
    static final long FRESH_MICROS = 200_000;

    /** Admitted before the member's time on every shard, and done on every shard. */
    public record Place(long ahead, long done) {}

    /**
     * A member's request on their home shard: {@code found} when they hold a place or have a result; their result
     * ('' while waiting) and, while waiting, their {@link Place}.
     */
    public record Standing(boolean found, String result, Place place, Draw draw) {

        Standing(boolean found, String result, Place place) {
            this(found, result, place, null);
        }
    }

    /**
     * A member of a fair start's draw that is not made yet, as their home shard counts it (shard_status.lua): the
     * entrants, the places the draw would give, drawAt (epoch ms), and whether the window is closed.
     */
    public record Draw(long entrants, long places, long drawAt, boolean closed) {}

    /**
     * How many of its latest sights of each shard this instance keeps: its own admissions there and its drain ticks
     * (0.1 s of a shard taking 300 admissions a second, more for a slower one).
     */
    static final int SIGHTS = 32;

    /**
     * A shard's admissions as this instance last saw them, each with when by the shard's clock (µs), oldest first: a
     * ring of the {@link #SIGHTS} latest, by time (a sight older than the latest, a reply that came late, is left out).
     */
    private static final class Sights {
        final long[] admitted = new long[SIGHTS];
        final long[] at = new long[SIGHTS];
        int size;
        int next;
        /** The shard's members done as last seen (-1: not yet), and when by its clock. */
        long done = -1;

        long doneAt = Long.MIN_VALUE;

        void addDone(long count, long time) {
            if (count >= 0 && time >= doneAt) {
                done = count;
                doneAt = time;
            }
        }

        void add(long count, long time) {
            if (size > 0 && time < at[index(size - 1)]) {
                return;
            }
            admitted[next] = count;
            at[next] = time;
            next = (next + 1) % SIGHTS;
            size = Math.min(size + 1, SIGHTS);
        }

        /** The ring position of the {@code i}-th sight, oldest first. */
        private int index(int i) {
            return (next - size + i + SIGHTS) % SIGHTS;
        }

        /**
         * The shard's admissions at {@code time} (µs, its clock): between the two sights around it, in proportion to
         * the time; the latest sight when none is newer; the oldest when every sight is newer (an overcount by the
         * admissions in between). -1 when the nearest sight is more than {@link #FRESH_MICROS} away.
         */
        long count(long time) {
            if (size == 0) {
                return -1;
            }
            for (int i = size - 1; i >= 0; i--) {
                int before = index(i);
                if (at[before] > time) {
                    continue;
                }
                if (i == size - 1) {
                    return time - at[before] <= FRESH_MICROS ? admitted[before] : -1;
                }
                int after = index(i + 1);
                if (Math.min(time - at[before], at[after] - time) > FRESH_MICROS) {
                    return -1; // two sights far apart (a quiet shard, a stalled drain): not a count to take
                }
                // at[after] > time >= at[before]: the span is never 0
                return admitted[before]
                        + Math.round((double) (admitted[after] - admitted[before])
                                * (time - at[before])
                                / (at[after] - at[before]));
            }
            int oldest = index(0);
            return at[oldest] - time <= FRESH_MICROS ? admitted[oldest] : -1;
        }
    }

    /** What this instance saw of one event: each shard's latest sights. */
    private static final class Seen {
        final Sights[] shards;

        Seen(int count) {
            shards = new Sights[count];
            for (int shard = 0; shard < count; shard++) {
                shards[shard] = new Sights();
            }
        }

        /** The members done on every shard, each as last seen; -1 while a shard was not seen. Hold the lock. */
        long done() {
            long sum = 0;
            for (Sights shard : shards) {
                if (shard.done < 0) {
                    return -1;
                }
                sum += shard.done;
            }
            return sum;
        }
    }

    private final ShardStock.Redis redis;
    private final ShardStock stock;
    private final Map<Long, Seen> seen = new ConcurrentHashMap<>();
    private final AtomicLong exactReads = new AtomicLong();

    public ShardPositions(ShardStock.Redis redis, ShardStock stock) {
        this.redis = redis;
        this.stock = stock;
    }

    /**
     * How many members are published before one admitted on {@code home} at {@code time} (us), on all the event's shards
     * together.
     */
    public Mono<Long> ahead(long couponId, int shards, int home, long time) {
        return place(couponId, shards, home, time).map(Place::ahead);
    }

    /** The member's request as their home shard has it, with their place across shards while they wait. */
    public Mono<Standing> standing(long couponId, int shards, String memberId) {
        int home = StockShards.home(memberId, shards);
        String tag = stock.tags(couponId, shards)[home];
        return redis.eval(
                        STATUS,
                        new String[] {
                            StockShards.queue(tag),
                            StockShards.times(tag),
                            StockShards.result(tag),
                            StockShards.draw(tag),
                            StockShards.stock(tag)
                        },
                        memberId)
                .flatMap(reply -> {
                    if (number(reply, 0) == 2) {
                        return Mono.just(new Standing(
                                true,
                                "",
                                new Place(0, 0),
                                new Draw(number(reply, 1), number(reply, 2), number(reply, 3), number(reply, 4) == 2)));
                    }
                    if (number(reply, 0) == 0) {
                        return Mono.just(new Standing(false, "", new Place(0, 0)));
                    }
                    String result = text(reply, 2);
                    return result.isEmpty()
                            ? place(couponId, shards, home, number(reply, 1))
                                    .map(place -> new Standing(true, "", place))
                            : Mono.just(new Standing(true, result, new Place(0, 0)));
                });
    }

    /**
     * The members published before one admitted on {@code home} at {@code time} (us), and the members done, on all the
     * event's shards together, with the places a fair start's draw holds and has not written in yet. The drainer
     * publishes admissions of the same microsecond on two shards lower shard first
     * ({@link ShardOrder}): a shard below {@code home} counts those of {@code time} too.
     */
    public Mono<Place> place(long couponId, int shards, int home, long time) {
        exactReads.incrementAndGet();
        String[] tags = stock.tags(couponId, shards);
        return Flux.range(0, shards)
                .flatMap(shard -> redis.eval(
                        AHEAD,
                        new String[] {
                            StockShards.times(tags[shard]),
                            StockShards.done(tags[shard]),
                            StockShards.stock(tags[shard])
                        },
                        Long.toString(time),
                        shard < home ? "1" : "0"))
                .reduce(
                        new Place(0, 0),
                        // a fair start's places held and not written in yet come before every admission after it
                        (sum, reply) -> new Place(
                                sum.ahead() + number(reply, 0) + (reply.size() > 3 ? number(reply, 3) : 0),
                                sum.done() + number(reply, 2)));
    }

    /**
     * The place of a member this instance just admitted on {@code home} at {@code time} (us), {@code before} members
     * after the shard's others, {@code homeDone} done on the home shard then (-1 unknown): from this instance's sights
     * of the other shards when each is fresh, exactly otherwise. The members done are each shard's as last seen: the
     * home shard's at this admission, another's at the latest admission or drain tick that read it (a drain tick's
     * alone ran a worker's batch behind under a crowd, measured: 40 members, 0.4 s at 100/s).
     */
    public Mono<Place> admitted(long couponId, int shards, int home, long before, long time, long homeDone) {
        Seen event = event(couponId, shards);
        long ahead = before;
        long done;
        synchronized (event) {
            event.shards[home].add(before + 1, time);
            event.shards[home].addDone(homeDone, time);
            done = event.done();
            if (done < 0) {
                ahead = -1;
            }
            for (int shard = 0; shard < shards && ahead >= 0; shard++) {
                if (shard == home) {
                    continue;
                }
                long count = event.shards[shard].count(time);
                if (count < 0) {
                    ahead = -1;
                    break;
                }
                ahead += count;
            }
        }
        return ahead < 0 ? place(couponId, shards, home, time) : Mono.just(new Place(ahead, done));
    }

    /** A drain tick's read of every shard: their counts by their clocks, and the members done on all of them. */
    public void saw(long couponId, ShardOrder.Batch totals) {
        int shards = totals.admittedByShard().length;
        if (shards == 0) {
            return;
        }
        Seen event = event(couponId, shards);
        synchronized (event) {
            for (int shard = 0; shard < shards; shard++) {
                event.shards[shard].add(totals.admittedByShard()[shard], totals.clockByShard()[shard]);
                event.shards[shard].addDone(totals.doneByShard()[shard], totals.clockByShard()[shard]);
            }
        }
    }

    /** What this instance saw of the event, anew when its shard count changed. */
    private Seen event(long couponId, int shards) {
        return seen.compute(
                couponId, (id, known) -> known == null || known.shards.length != shards ? new Seen(shards) : known);
    }

    /** The event's shard count as this instance's drain ticks saw it; 1 when it saw none (one shard, or not yet). */
    public int shards(long couponId) {
        Seen event = seen.get(couponId);
        return event == null ? 1 : event.shards.length;
    }

    /** The members done on every shard, each as this instance last saw it; -1 when it did not see every shard yet. */
    public long done(long couponId) {
        Seen event = seen.get(couponId);
        if (event == null) {
            return -1;
        }
        synchronized (event) {
            return event.done();
        }
    }

    /** The results of these members, each read on their home shard (one call per shard with any of them). */
    public Mono<Map<String, String>> results(long couponId, int shards, java.util.List<String> members) {
        String[] tags = stock.tags(couponId, shards);
        Map<Integer, java.util.List<String>> byHome = new java.util.TreeMap<>();
        members.forEach(
                member -> byHome.computeIfAbsent(StockShards.home(member, shards), home -> new java.util.ArrayList<>())
                        .add(member));
        return Flux.fromIterable(byHome.entrySet())
                .concatMap(home -> redis.eval(
                                LOOKUP,
                                new String[] {StockShards.result(tags[home.getKey()])},
                                home.getValue().toArray(String[]::new))
                        .map(reply -> {
                            Map<String, String> found = new java.util.HashMap<>();
                            for (int i = 0; i < home.getValue().size(); i++) {
                                found.put(home.getValue().get(i), text(reply, i));
                            }
                            return found;
                        }))
                .reduce(new java.util.HashMap<String, String>(), (all, found) -> {
                    all.putAll(found);
                    return all;
                })
                .map(all -> (Map<String, String>) all);
    }

    /** Forgets what it saw of events no longer drained. */
    public void retainOnly(java.util.Collection<Long> couponIds) {
        seen.keySet().retainAll(java.util.Set.copyOf(couponIds));
    }

    /** Places read exactly (one call per shard) since this instance started. */
    public long exactReads() {
        return exactReads.get();
    }
}
