package com.flashcoupon.api.draw;

import com.flashcoupon.api.coupon.CouponStates;
import com.flashcoupon.api.health.OutageLog;
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
 *   <li>{@code draw_state.lua} closes the window if no script did yet: the entrants are frozen, the places held.
 *   <li>The entrants are read (in their ids' byte order, the sorted set's), the seed from MySQL, and {@link DrawRules}
 *       orders them; the placed members go into the queue with the sequences the window held for them, page by page
 *       ({@code draw_place.lua}), then {@code draw_finish.lua} marks the draw made: members learn their outcome, the
 *       drainer publishes the placed ones first.
 *   <li>Every entrant's place (or none) is recorded in MySQL, then the draw itself (its figures), which publishes the
 *       seed: from then on anyone can recompute the draw, and members left out are answered from MySQL should Redis
 *       lose the event.
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
    /** From the lease to the draw made in Redis (members know), and to the draw recorded in MySQL (seed public). */
    private final Timer madeIn;

    private final Timer recordedIn;
    private final Counter made;
    private final OutageLog outage = new OutageLog(log, "making draws");

    DrawMaker(StringRedisTemplate redis, DrawRepository draws, CouponStates states, Clock clock, MeterRegistry meters) {
        this.redis = new RedisDraw(redis, ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID());
        this.draws = draws;
        this.states = states;
        this.clock = clock;
        this.madeIn = Timer.builder("coupon.draw.duration")
                .description("Time to make one draw, from the first read of its entrants: until members know (made)"
                        + " and until it is recorded in MySQL and its seed published (recorded)")
                .tag("step", "made")
                .register(meters);
        this.recordedIn = Timer.builder("coupon.draw.duration")
                .description("Time to make one draw, from the first read of its entrants: until members know (made)"
                        + " and until it is recorded in MySQL and its seed published (recorded)")
                .tag("step", "recorded")
                .register(meters);
        this.made = Counter.builder("coupon.draws")
                .description("Draws this instance made and recorded")
                .register(meters);
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
        RedisDraw.State state = redis.state(couponId);
        if (!state.present()) {
            // Redis lost the event: a read restores it from MySQL (the window's entrants were lost with it)
            states.load(couponId).block(REDIS_WAIT);
            state = redis.state(couponId);
            if (!state.present()) {
                return;
            }
        }
        if (state.window() == 1 || !redis.lease(couponId)) {
            return; // open by Redis' clock (the next pass), or another instance makes it
        }
        long started = System.nanoTime();
        try {
            List<String> entrants = redis.entrants(couponId);
            Recorded outcome = state.madeWithoutSeed()
                    ? placedBefore(couponId, entrants)
                    : drawn(couponId, entrants, state, started);
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
        } finally {
            redis.release(couponId);
        }
    }

    /**
     * The draw from the seed and the entrants, written into Redis when it is not made yet; when it is (by an instance
     * that stopped before recording it), only computed again for the record: it is deterministic.
     */
    private Recorded drawn(long couponId, List<String> entrants, RedisDraw.State state, long started) {
        byte[] seed = draws.secretSeed(couponId)
                .orElseThrow(() -> new IllegalStateException("coupon " + couponId + " has a draw without a seed"));
        long read = System.nanoTime();
        DrawRules.Outcome outcome = DrawRules.draw(seed, entrants, state.places());
        if (state.window() == 2) {
            long computed = System.nanoTime();
            redis.place(couponId, state.firstSequence(), outcome.placed());
            long placed = System.nanoTime();
            madeIn.record(Duration.ofNanos(placed - started));
            log.info(
                    "coupon {}: draw made in {} ms (entrants read in {} ms, ordered in {} ms, places written in {} ms),"
                            + " {} entrants, {} placed (sequences {} on), entrants' digest {}",
                    couponId,
                    (placed - started) / 1_000_000,
                    (read - started) / 1_000_000,
                    (computed - read) / 1_000_000,
                    (placed - computed) / 1_000_000,
                    outcome.entrants(),
                    outcome.placed().size(),
                    state.firstSequence(),
                    DrawRules.hex(outcome.entrantsDigest()));
        }
        Map<String, Integer> places = new HashMap<>();
        for (int i = 0; i < outcome.placed().size(); i++) {
            places.put(outcome.placed().get(i), i + 1);
        }
        return new Recorded(entrants, places, outcome.entrantsDigest(), state.firstSequence());
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
        return new Recorded(entrants, places, DrawRules.entrantsDigest(entrants), first);
    }

    /**
     * Every entrant's row, then the draw's: the seed is published only once every place is in MySQL. True when this
     * call recorded it.
     */
    private boolean record(long couponId, Recorded outcome) {
        List<DrawRepository.Entrant> page = new ArrayList<>(DrawRepository.PAGE);
        for (String member : outcome.entrants) {
            page.add(new DrawRepository.Entrant(member, outcome.places.get(member)));
            if (page.size() == DrawRepository.PAGE) {
                draws.recordEntrants(couponId, page);
                page.clear();
                redis.renew(couponId);
            }
        }
        draws.recordEntrants(couponId, page);
        if (draws.markDrawn(
                couponId,
                clock.instant(),
                outcome.entrants.size(),
                outcome.places.size(),
                DrawRules.hex(outcome.digest),
                outcome.firstSequence)) {
            made.increment();
            return true;
        }
        return false;
    }

    /** What is recorded: the entrants in byte order, the places by member, the digest, the sequence of place 1. */
    private record Recorded(List<String> entrants, Map<String, Integer> places, byte[] digest, long firstSequence) {}
}
