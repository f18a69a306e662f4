package com.flashcoupon.api.drain;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.shard.ShardOrder;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.StockShards;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes an event whose stock is in shards (docs/architecture.md, "Stock shards"), under the event's one lease
 * ({@link DrainLease}, on shard 0's slot, as for any event): each turn reads the next batch across every shard in
 * admission-time order up to the shards' horizon ({@link ShardOrder}), completes the transfers an instance left in
 * escrow when a shard shows one ({@link ShardStock#recover}), publishes the batch at the event's rate, and moves each
 * shard's cursor past its own members once Kafka acknowledged it. A record's sequence is its place in the publication
 * order: what every shard published before it, plus one (a batch published again is read again in the same order, so
 * a record keeps its sequence, unless an advance stopped between shards: then only its {@code request_seq} shows it).
 * After a Redis loss the publication goes on from what MySQL knows published: the admissions the restore knows only as
 * a count (the meta's {@code base} less the members since put back on their shard) come before every cursor, so a
 * sequence is never handed out twice and {@code published_count} keeps counting every publication (the floor of the
 * next restore). Every instance reads the shards' totals each tick for its estimates, whoever drains, except for a
 * finished event ({@link #FINISHED_READ_NANOS}).
 */
final class ShardDrain {

    private static final Logger log = LoggerFactory.getLogger(ShardDrain.class);

    /** The longest wait for one round of the shards' scripts. */
    private static final Duration SHARD_WAIT = Duration.ofSeconds(5);

    /**
     * A finished event ({@link #finished}: sold out or closed, everything published and decided, nothing in escrow) is
     * read this often, not every tick: it keeps its lease until it retires (24 h as shipped), and its shards cost a
     * call each per tick and instance meanwhile. Six settled six-shard events on one api slowed its drain of a
     * seventh, under its crowd, to a quarter of the rate for seconds. A change of its total, closed flag or closeAt
     * (in the claim) reads it at once. Anything else that could wake it waits this long at most before it is
     * published: a shard lost alone and dealt again, a failover that lost a shard's cursor or done count, a member
     * asking again after a restore that freed a place, an admission at the closing instant by Redis' clock.
     */
    static final long FINISHED_READ_NANOS = 2_000_000_000L;

    /** An event found finished: when, and the settings it was found finished under. */
    private record Finished(long atNanos, long total, long closed, long closeAt) {

        boolean holds(long total, long closed, long closeAt, long now) {
            return this.total == total
                    && this.closed == closed
                    && this.closeAt == closeAt
                    && now - atNanos < FINISHED_READ_NANOS;
        }
    }

    private final Map<Long, Finished> finished = new HashMap<>();

    private final ShardOrder order;
    private final ShardPositions positions;
    private final ShardStock stock;
    private final ShardStock.Redis redis;
    private final DrainPacer pacer;
    private final DrainRates rates;
    private final DrainLease lease;
    private final DrainLedger ledger;
    private final BatchPublisher publisher;
    private final Clock clock;
    private final long tickNanos;
    private final int maxBatch;
    private final boolean replicas;

    ShardDrain(
            ShardOrder order,
            ShardPositions positions,
            ShardStock stock,
            ShardStock.Redis redis,
            DrainPacer pacer,
            DrainRates rates,
            DrainLease lease,
            DrainLedger ledger,
            BatchPublisher publisher,
            Clock clock,
            Duration tick,
            int maxBatch,
            boolean replicas) {
        this.order = order;
        this.positions = positions;
        this.stock = stock;
        this.redis = redis;
        this.pacer = pacer;
        this.rates = rates;
        this.lease = lease;
        this.ledger = ledger;
        this.publisher = publisher;
        this.clock = clock;
        this.tickNanos = tick.toNanos();
        this.maxBatch = maxBatch;
        this.replicas = replicas;
    }

    /**
     * One turn of the event, after the lease's claim ({@code claim}, drain_claim.lua's reply; {@code owned}). The
     * owner reads the next entries with every shard's totals in one round (a call per shard), at most what two ticks
     * at the event's rate publish; another instance reads the totals alone, for its estimates. Transfers left in escrow
     * are completed only when a shard shows one.
     */
    void drain(long couponId, int shards, List<?> claim, boolean owned) {
        long total = claim.size() > 11 ? number(claim, 11) : -1;
        long closed = claim.size() > 12 ? number(claim, 12) : -1;
        long closeAt = claim.size() > 13 ? number(claim, 13) : -1;
        Finished seen = finished.get(couponId);
        if (seen != null && seen.holds(total, closed, closeAt, System.nanoTime())) {
            return;
        }
        int reading = (int) Math.min(maxBatch, Math.max(1, (long) (number(claim, 3) * 2 * tickNanos / 1e9)));
        long epoch = redis.epoch();
        ShardOrder.Batch read = (owned
                        ? order.next(couponId, shards, reading, replicas)
                        : order.totals(couponId, shards))
                .block(SHARD_WAIT);
        if (read == null) {
            return;
        }
        // the admissions a restore knows only as a count, published before every shard's cursor (0 without a loss)
        long before = Math.max(0, number(claim, 4));
        boolean over = closed == 1 || (closeAt > 0 && clock.millis() >= closeAt);
        if (finished(read, known(before, read), total, over)) {
            finished.put(couponId, new Finished(System.nanoTime(), total, closed, closeAt));
        } else {
            finished.remove(couponId);
        }
        positions.saw(couponId, read);
        double rate = rates.decide(couponId, withTotals(claim, read), owned);
        if (!owned) {
            return;
        }
        if (rate <= 0) {
            lease.release(couponId); // its rate is not a number: nothing can be paced
            return;
        }
        if (read.escrowed() > 0) {
            Integer completed = stock.recover(couponId, shards).block(SHARD_WAIT);
            if (completed != null && completed > 0) {
                log.info("coupon {}: completed {} stock transfers left in escrow", couponId, completed);
            }
        }
        long started = System.nanoTime();
        while (true) {
            long pending = read.admitted() - read.cursor();
            long allowed = pending <= 0 ? 0 : pacer.available(couponId, rate, pending, System.nanoTime());
            ShardOrder.Batch batch = ShardOrder.first(read, (int) Math.min(allowed, maxBatch));
            if (batch.entries().isEmpty() || !replicated(couponId, shards, batch, epoch)) {
                return;
            }
            // each shard's publication mark before anything is sent (a shard lost alone is dealt from it, so it must
            // never stand below what was published: a mark raised for a batch that fails stands one batch ahead, on
            // the safe side), on the replicas too when the deployment asks for them
            order.mark(couponId, shards, batch).block(SHARD_WAIT);
            if (replicas
                    && !Boolean.TRUE.equals(
                            redis.replicated(CouponKeys.meta(couponId), epoch).block(SHARD_WAIT))) {
                log.debug("coupon {}: the shards' publication marks not on the replicas yet; not published", couponId);
                return;
            }
            List<ShardOrder.Entry> entries = batch.entries();
            // spent before sending, as for an event of one shard: a batch sent again never takes it above its rate
            pacer.spend(couponId, entries.size());
            long now = clock.millis();
            long known = known(before, batch);
            List<IssueRequested> requests = new ArrayList<>(entries.size());
            for (int i = 0; i < entries.size(); i++) {
                requests.add(new IssueRequested(couponId, entries.get(i).member(), known + batch.sequence(i), now));
            }
            publisher.send(couponId, batch.cursor(), requests);
            order.advance(couponId, shards, batch).block(SHARD_WAIT);
            if (!lease.renew(couponId)) {
                throw new BatchPublisher.LeaseLostException("lost the drain lease of a sharded event while publishing");
            }
            ledger.recordPublished(couponId, known + batch.cursor() + entries.size(), known + batch.admitted());
            rates.published(couponId, known + batch.cursor() + entries.size());
            // back to the tick after one tick's time, as for an event of one shard
            if (System.nanoTime() - started >= tickNanos) {
                return;
            }
            epoch = redis.epoch();
            read = order.next(couponId, shards, reading, replicas).block(SHARD_WAIT);
            if (read == null) {
                return;
            }
        }
    }

    /**
     * With {@code coupon.redis.min-replicas}, whether every shard of the batch confirmed its queue on the replicas
     * (the read wrote each shard's cursor on this connection, so a wait covers every admission before it).
     */
    private boolean replicated(long couponId, int shards, ShardOrder.Batch batch, long epoch) {
        if (!replicas) {
            return true;
        }
        Set<Integer> touched = new TreeSet<>();
        batch.entries().forEach(entry -> touched.add(entry.shard()));
        String[] tags = stock.tags(couponId, shards);
        for (int shard : touched) {
            Boolean confirmed =
                    redis.replicated(StockShards.queue(tags[shard]), epoch).block(SHARD_WAIT);
            if (!Boolean.TRUE.equals(confirmed)) {
                log.debug("coupon {}: shard {}'s queue not on its replicas yet; not published", couponId, shard);
                return false;
            }
        }
        return true;
    }

    /**
     * The admissions published before a Redis loss that no shard's queue holds: the meta's base less the members the
     * worker put back since (each also moved its shard's cursor by one, so the sum stays the same).
     */
    static long known(long base, ShardOrder.Batch batch) {
        return Math.max(0, base - batch.back());
    }

    /**
     * Whether nothing of the event can move any more: admissions over ({@code closed}: closed by the operator or past
     * its closeAt), or every coupon of {@code total} taken; every admission published, every publication decided, no
     * stock in escrow. What a restore knows only as a count ({@code known}) is published; the members who asked again
     * after it freed their place ({@code again}), as the event's admissions count them (CouponStates).
     */
    static boolean finished(ShardOrder.Batch read, long known, long total, boolean closed) {
        return (closed || (total > 0 && known - read.again() + read.admitted() >= total))
                && read.cursor() >= read.admitted()
                && read.done() >= known + read.cursor()
                && read.escrowed() == 0;
    }

    /** Forgets what was seen of events no longer drained. */
    void retainOnly(Set<Long> couponIds) {
        positions.retainOnly(couponIds);
        finished.keySet().retainAll(couponIds);
    }

    /**
     * The claim's reply with the shards' totals in place of shard 0's: what was published, admitted and done, and the
     * admissions a restore knows only as a count ({@link #known}) as the base.
     */
    static List<Object> withTotals(List<?> claim, ShardOrder.Batch totals) {
        List<Object> view = new ArrayList<>(claim);
        view.set(1, totals.cursor());
        long base = number(claim, 4); // -1: not a number, which the rates report
        view.set(4, base < 0 ? base : known(base, totals));
        view.set(2, totals.admitted());
        view.set(5, totals.done());
        return view;
    }
}
