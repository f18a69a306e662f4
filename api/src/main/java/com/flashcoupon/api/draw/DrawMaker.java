package com.flashcoupon.api.draw;

import com.flashcoupon.api.coupon.CouponStates;
import com.flashcoupon.api.health.OutageLog;
import com.flashcoupon.api.shard.ShardDraws;
import com.flashcoupon.api.shard.ShardStock;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Makes the draws of RANDOMIZED_START events whose window is over (docs/architecture.md, "A draw anyone can check"),
 * on a thread of its own, on every api instance; a lease in the coupon's slot lets one instance make a given draw.
 *
 * <ol>
 *   <li>{@code draw_state.lua} closes the window if no script did yet: the entrants are frozen in Redis (their count),
 *       the places held.
 *   <li>The entrants are read (in their ids' byte order, the sorted set's); their count and root are frozen in MySQL
 *       (public from then on) before the seed is read, and a set that differs from the frozen one is refused, never
 *       drawn on ({@code coupon_draw_refused_total}).
 *   <li>{@link DrawRules} orders them; every entrant's place (or none) is recorded in MySQL, then the draw itself (its
 *       figures), which publishes the seed: from then on anyone can recompute the draw.
 *   <li>Only then the placed members go into the queue with the sequences recorded, page by page ({@code
 *       draw_place.lua}), and {@code draw_finish.lua} marks the draw made: members learn their outcome, the drainer
 *       publishes the placed ones first. A Redis loss before this step tells no member anything; after it, the restore
 *       answers every member from MySQL as Redis did.
 * </ol>
 *
 * Every step is idempotent and the draw deterministic (the seed and the entrants decide it), so an instance that dies
 * at any point leaves the rest to the next pass of any instance. Blocking; never on an event loop.
 */
@Service
public class DrawMaker {

    private static final Logger log = LoggerFactory.getLogger(DrawMaker.class);

    /** Draws looked at per pass. */
    private static final int DUE_LIMIT = 100;

    private static final Duration REDIS_WAIT = Duration.ofSeconds(5);

    private final RedisDraw redis;
    private final DrawRepository draws;
    private final CouponStates states;
    private final Clock clock;
    /** From the first read of the entrants to the draw recorded in MySQL (seed public); the Redis writes (members know). */
    private final Timer madeIn;

    private final Timer recordedIn;
    private final Counter made;
    private final FrozenSets frozenSets;
    private final OutageLog outage = new OutageLog(log, "making draws");

    private final DrawBeacon beacon;

    /** A fair start across stock shards: the sizing and the draw written into the shards. */
    private final ShardDraws shardDraws;

    /** How long writing a draw into the shards may take (a page of members per call, every shard). */
    private static final Duration SHARD_WRITE_WAIT = Duration.ofMinutes(5);

    DrawMaker(
            StringRedisTemplate redis,
            DrawRepository draws,
            CouponStates states,
            Clock clock,
            MeterRegistry meters,
            DrawBeacon beacon,
            ShardStock shardStock) {
        this.beacon = beacon;
        this.shardDraws = shardStock.draws();
        this.redis = new RedisDraw(redis, ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID());
        this.draws = draws;
        this.states = states;
        this.clock = clock;
        this.madeIn = Timer.builder("coupon.draw.duration")
                .description("Time to record one draw in MySQL from the first read of its entrants (recorded), and to"
                        + " write the recorded draw into Redis, members told (made)")
                .tag("step", "made")
                .register(meters);
        this.recordedIn = Timer.builder("coupon.draw.duration")
                .description("Time to record one draw in MySQL from the first read of its entrants (recorded), and to"
                        + " write the recorded draw into Redis, members told (made)")
                .tag("step", "recorded")
                .register(meters);
        this.made = Counter.builder("coupon.draws")
                .description("Draws this instance made and recorded")
                .register(meters);
        this.frozenSets = new FrozenSets(draws, clock, meters);
    }

    /** One pass over every draw that is due and not recorded. A failing draw does not hold up the others. */
    void run() {
        List<Long> due;
        try {
            due = draws.due(clock.instant(), DUE_LIMIT);
        } catch (RuntimeException e) {
            outage.failed("listing the draws due", e);
            return;
        }
        boolean allMade = true;
        for (long couponId : due) {
            try {
                make(couponId);
            } catch (RuntimeException e) {
                allMade = false;
                outage.failed("coupon " + couponId, e);
            }
        }
        if (allMade) {
            outage.succeeded();
        }
    }

    /** Makes and records one event's draw if its window is over; does nothing while another instance holds it. */
    void make(long couponId) {
        if (recordStep(couponId)) {
            madeStep(couponId);
        }
    }

    /**
     * The first step: the entrant set frozen (or checked against the frozen one), the draw computed and every place
     * recorded in MySQL, which publishes the seed. Nothing is told to any member yet. True when the draw is recorded
     * (now or before) and the next step is due.
     */
    boolean recordStep(long couponId) {
        RedisDraw.State state = redis.state(couponId);
        if (!state.present()) {
            // Redis lost the event: a read restores it from MySQL (the window's entrants were lost with it)
            states.load(couponId).block(REDIS_WAIT);
            state = redis.state(couponId);
            if (!state.present()) {
                return false;
            }
        }
        if (state.window() == 1) {
            return false; // open by Redis' clock: the next pass
        }
        DrawRecord record = draws.find(couponId)
                .orElseThrow(() -> new IllegalStateException("coupon " + couponId + " has no draw"));
        if (record.recorded()) {
            return true;
        }
        if (!redis.lease(couponId)) {
            return false; // another instance makes it
        }
        long started = System.nanoTime();
        try {
            int shards = shards(couponId);
            List<String> entrants;
            if (shards > 1) {
                // across stock shards: every shard closed and the draw's places held, then its entrants merged
                ShardDraws.Sized sized = shardDraws.size(couponId, shards).block(REDIS_WAIT);
                // place p is published p-th: nothing of the event is published before its draw is made
                state = new RedisDraw.State(true, 2, 1, sized.places(), sized.entrants(), false);
                entrants = redis.entrants(couponId, shards);
            } else {
                entrants = redis.entrants(couponId);
            }
            Recorded outcome;
            if (state.madeWithoutSeed()) {
                outcome = placedBefore(couponId, entrants);
            } else {
                byte[] key = record.functionVersion() == 1
                        ? null
                        : draws.pseudonymKey(couponId)
                                .orElseThrow(() -> new IllegalStateException(
                                        "coupon " + couponId + " has a draw of function 2 without a pseudonym key"));
                DrawRules.Leaves leaves = DrawRules.leaves(record.functionVersion(), key, entrants);
                if (!frozenSets.sameSet(couponId, record, state, leaves)) {
                    return false;
                }
                // the set is frozen and public: only now the beacon round after drawAt, if one is configured; the
                // draw waits for it (retried on the next pass), never made without it
                DrawBeacon.Round round = null;
                if (beacon.configured() && record.functionVersion() != 1) {
                    round = beacon.roundFor(couponId, record.drawAt()).orElse(null);
                    if (round == null) {
                        return false;
                    }
                }
                outcome = drawn(couponId, entrants, leaves, record.functionVersion(), state, round);
            }
            if (record(couponId, outcome)) {
                Duration took = Duration.ofNanos(System.nanoTime() - started);
                recordedIn.record(took);
                log.info(
                        "coupon {}: draw recorded in MySQL {} ms after its first read, {} entrants, {} placed; its seed"
                                + " is published",
                        couponId,
                        took.toMillis(),
                        outcome.entrants().size(),
                        outcome.places().size());
            }
            return true;
        } finally {
            redis.release(couponId);
        }
    }

    /**
     * The second step, once the draw is recorded: its placed members written into the queue with the sequences MySQL
     * recorded, and the draw marked made in Redis; members learn their outcome from now on. After a Redis loss the
     * restore did this already (mirror.lua marks a recorded draw made, the restore queues its placed members).
     */
    void madeStep(long couponId) {
        RedisDraw.State state = redis.state(couponId);
        DrawRecord record = draws.find(couponId).orElse(null);
        if (!state.present() || record == null || !record.recorded() || !redis.lease(couponId)) {
            return;
        }
        try {
            if (state.window() == 2) {
                long started = System.nanoTime();
                List<String> placed = draws.placedInOrder(couponId);
                int shards = shards(couponId);
                if (shards > 1) {
                    ShardDraws.Sized sized = shardDraws.size(couponId, shards).block(REDIS_WAIT);
                    shardDraws
                            .write(
                                    couponId,
                                    shards,
                                    sized,
                                    placed,
                                    record.drawAt().toEpochMilli())
                            .block(SHARD_WRITE_WAIT);
                    redis.finish(couponId);
                } else {
                    redis.place(couponId, record.firstSequence(), placed);
                }
                madeIn.record(Duration.ofNanos(System.nanoTime() - started));
                log.info(
                        "coupon {}: draw made (members told), {} placed from sequence {}",
                        couponId,
                        placed.size(),
                        record.firstSequence());
            }
            draws.markMade(couponId, clock.instant());
        } finally {
            redis.release(couponId);
        }
    }

    /** The event's stock shards as Redis holds it; fails when Redis holds no event (the next pass looks again). */
    private int shards(long couponId) {
        var state = states.read(couponId).block(REDIS_WAIT);
        if (state == null) {
            throw new IllegalStateException("coupon " + couponId + " is not in Redis; its draw waits for the mirror");
        }
        return state.shards();
    }

    /** The draw from the seed and the frozen entrants' leaves: computed, nothing written. */
    private Recorded drawn(
            long couponId,
            List<String> entrants,
            DrawRules.Leaves leaves,
            int version,
            RedisDraw.State state,
            DrawBeacon.Round round) {
        byte[] seed = draws.secretSeed(couponId)
                .orElseThrow(() -> new IllegalStateException("coupon " + couponId + " has a draw without a seed"));
        byte[] key = round == null ? seed : DrawRules.beaconKey(seed, DrawRules.unhex(round.randomness()));
        DrawRules.Outcome outcome = DrawRules.draw(key, leaves.inOrder(), state.places());
        Map<String, Integer> places = new HashMap<>();
        for (int i = 0; i < outcome.placed().size(); i++) {
            places.put(leaves.member().get(outcome.placed().get(i)), i + 1);
        }
        Map<String, String> pseudonyms = new HashMap<>();
        if (version != 1) {
            leaves.member().forEach((pseudonym, member) -> pseudonyms.put(member, pseudonym));
        }
        return new Recorded(entrants, places, outcome.entrantsDigest(), state.firstSequence(), pseudonyms, round);
    }

    /**
     * A draw made before draws had seeds (the api drew each member's ticket, and the draw script of old placed them):
     * recorded as Redis holds it, each placed entrant's place its rank by sequence. It cannot be checked.
     */
    private Recorded placedBefore(long couponId, List<String> entrants) {
        List<Double> sequences = redis.sequences(couponId, entrants);
        List<Integer> placed = new ArrayList<>();
        for (int i = 0; i < entrants.size(); i++) {
            if (sequences.get(i) != null) {
                placed.add(i);
            }
        }
        placed.sort(Comparator.comparing(sequences::get));
        Map<String, Integer> places = new HashMap<>();
        for (int rank = 0; rank < placed.size(); rank++) {
            places.put(entrants.get(placed.get(rank)), rank + 1);
        }
        long first = placed.isEmpty() ? 0 : sequences.get(placed.getFirst()).longValue();
        return new Recorded(entrants, places, DrawRules.entrantsDigest(entrants), first, Map.of(), null);
    }

    /**
     * Every entrant's row, then the draw's: the seed is published only once every place is in MySQL. True when this
     * call recorded it.
     */
    private boolean record(long couponId, Recorded outcome) {
        List<DrawRepository.Entrant> page = new ArrayList<>(DrawRepository.PAGE);
        for (String member : outcome.entrants) {
            page.add(new DrawRepository.Entrant(member, outcome.places.get(member), outcome.pseudonyms.get(member)));
            if (page.size() == DrawRepository.PAGE) {
                draws.recordEntrants(couponId, page);
                page.clear();
                redis.renew(couponId);
            }
        }
        draws.recordEntrants(couponId, page);
        long rows = draws.entrantRows(couponId);
        if (rows != outcome.entrants.size()) {
            frozenSets.refused();
            throw new IllegalStateException("coupon " + couponId + ": MySQL holds " + rows
                    + " entrant rows for a draw of " + outcome.entrants.size() + "; refused");
        }
        redis.renew(couponId);
        if (draws.markDrawn(
                couponId,
                clock.instant(),
                outcome.entrants.size(),
                outcome.places.size(),
                DrawRules.hex(outcome.digest),
                outcome.firstSequence,
                draws.secretSeed(couponId).orElse(null),
                outcome.beacon)) {
            made.increment();
            return true;
        }
        return false;
    }

    /**
     * What is recorded: the entrants in byte order, the places by member, the digest of the leaves, the sequence of
     * place 1, each member's pseudonym (function 2; empty for function 1), and the beacon round mixed in (function 3;
     * null otherwise).
     */
    private record Recorded(
            List<String> entrants,
            Map<String, Integer> places,
            byte[] digest,
            long firstSequence,
            Map<String, String> pseudonyms,
            DrawBeacon.Round beacon) {}
}
