package com.flashcoupon.api.retire;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.api.coupon.CouponStates;
import com.flashcoupon.api.coupon.EventList;
import com.flashcoupon.api.coupon.ResultRepair;
import com.flashcoupon.api.coupon.RetiredCoupons;
import com.flashcoupon.api.draw.DrawRecord;
import com.flashcoupon.api.draw.DrawRepository;
import com.flashcoupon.api.gatestate.GateCounts;
import com.flashcoupon.api.health.OutageLog;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;

/**
 * Ends an event's life in Redis (docs/architecture.md, "An event's life"). An event is settled once admission is over
 * (closed, or sold out) and every admitted member has a result in MySQL (issued or FAILED); once it has been settled
 * for the retention, it is retired: MySQL records it first (from then on MySQL answers every status, refusal and
 * figure of the event), then one script removes its Redis keys. Every api instance runs this; the conditional update
 * in MySQL lets exactly one of them retire an event, and removing keys is idempotent, so an instance that dies between
 * the two steps leaves the rest to the next pass of any instance. Runs on a scheduler thread of its own: it may block.
 */
@Service
class EventRetirer {

    private static final Logger log = LoggerFactory.getLogger(EventRetirer.class);

    private final OutageLog outage = new OutageLog(log, "settling and retiring events");

    private static final RedisScript<Long> RETIRE = RedisScript.of(LuaScripts.text("scripts/retire.lua"), Long.class);

    private static final Duration REDIS_WAIT = Duration.ofSeconds(5);

    private final CouponRepository coupons;
    private final EventList eventList;
    private final CouponStates states;
    private final RetiredCoupons retired;
    private final StringRedisTemplate redis;
    private final Duration retention;
    private final Duration markTtl;
    private final Clock clock;
    private final Counter settledEvents;
    private final Counter retiredEvents;
    private final Counter repairedResults;
    private final ResultRepair restore;
    private final DrawRepository draws;
    private final GateCounts gateCounts;

    /**
     * Events whose Redis had fewer results than MySQL at the last pass, with MySQL's count then (retire thread only):
     * results still missing a pass later were lost, not late.
     */
    private final Map<Long, Long> behind = new HashMap<>();

    /** The events with Redis state at the last pass (only the retire thread reads and writes it). */
    private Set<Long> listed = Set.of();

    EventRetirer(
            CouponRepository coupons,
            EventList eventList,
            CouponStates states,
            RetiredCoupons retired,
            StringRedisTemplate redis,
            ResultRepair restore,
            DrawRepository draws,
            GateCounts gateCounts,
            ApiProperties properties,
            Clock clock,
            MeterRegistry meters) {
        this.restore = restore;
        this.draws = draws;
        this.gateCounts = gateCounts;
        this.coupons = coupons;
        this.eventList = eventList;
        this.states = states;
        this.retired = retired;
        this.redis = redis;
        this.retention = properties.retention().after();
        this.markTtl = properties.retention().markTtl();
        this.clock = clock;
        this.settledEvents = Counter.builder("coupon.events.settled")
                .description("Events found settled by this instance: admission over, every admitted member told")
                .register(meters);
        this.repairedResults = Counter.builder("coupon.results.repaired")
                .description("Results put back into Redis from MySQL after Redis lost them (a failover)")
                .register(meters);
        this.retiredEvents = Counter.builder("coupon.events.retired")
                .description("Events this instance retired: their Redis state removed, MySQL answers for them")
                .register(meters);
    }

    /**
     * How often, in passes, a settled event's Redis state is read for lost results: a settled event's state changes
     * only through a loss, so a pass in this many is enough (10 s by default), and a pass over many settled events
     * reads few of them.
     */
    static final int SETTLED_CHECK_EVERY = 5;

    /** Passes made (retire thread only). */
    private long passes;

    /** One pass over every event that still has state in Redis. A failing event does not hold up the others. */
    void run() {
        passes++;
        List<Long> ids;
        try {
            ids = eventList.withRedisState();
        } catch (RuntimeException e) {
            log.debug("events to retire not listed, MySQL did not answer: {}", e.toString());
            return;
        }
        learnRetired(ids);
        boolean allStepped = true;
        for (long id : ids) {
            try {
                step(id);
            } catch (RuntimeException e) {
                allStepped = false;
                outage.failed("coupon " + id, e);
            }
        }
        if (allStepped) {
            outage.succeeded();
        }
    }

    /**
     * Events that left the list since the last pass were retired (by this instance or another): remembered, so this
     * instance answers for them from MySQL without asking Redis first.
     */
    private void learnRetired(List<Long> ids) {
        Set<Long> now = Set.copyOf(ids);
        for (long id : listed) {
            if (!now.contains(id)) {
                coupons.findById(id).ifPresent(retired::remember);
            }
        }
        listed = now;
    }

    private void step(long id) {
        Coupon coupon = coupons.findById(id).orElse(null);
        if (coupon == null) {
            return;
        }
        if (coupon.retired()) {
            removeKeys(coupon); // retired by an instance that stopped before the keys went
            return;
        }
        if ((passes + id) % SETTLED_CHECK_EVERY == 0) {
            // the gate's counts live in Redis: saved every few passes, so that a Redis loss costs only the last few
            gateCounts.save(id, coupon.stockShards());
        }
        Instant now = clock.instant();
        Instant due = coupon.settledAt() == null ? null : coupon.settledAt().plus(retention);
        if (due != null && now.isBefore(due)) {
            // settled, waiting out the retention: results lost since (a failover right after the last ones were
            // written) are still put back, looked for every few passes rather than every pass
            if ((passes + id) % SETTLED_CHECK_EVERY == 0) {
                states.read(id).blockOptional(REDIS_WAIT).ifPresent(state -> repairIfResultsLost(coupon, state));
            }
            return;
        }
        // Redis' view; when Redis has none (lost, never restored), MySQL's figures are all there is
        var inRedis = states.read(id).blockOptional(REDIS_WAIT);
        inRedis.ifPresent(state -> repairIfResultsLost(coupon, state));
        CouponState state = inRedis.orElseGet(() -> CouponState.retired(coupon, now.toEpochMilli()));
        // a draw still to be made or recorded is waited for: its entrants have no outcome yet (Redis' view of it is
        // read in the same step as the state, so a draw made in between cannot make the event look settled early)
        if (!settled(coupon, state) || state.draw().pending() || !drawRecorded(coupon)) {
            return;
        }
        // both updates only from the version read with the row: an operator's change since then (a later closeAt
        // reopening admission) wins
        if (due == null) {
            if (coupons.markSettled(id, coupon.version(), now)) {
                settledEvents.increment();
                log.info(
                        "coupon {} settled: {} admitted, {} issued, {} failed; its Redis state goes after {}",
                        id,
                        state.admitted(),
                        coupon.issuedCount(),
                        coupon.failedCount(),
                        retention);
            }
            return;
        }
        if (coupons.markRetired(id, coupon.version(), now, state.admitted(), state.rejectedSoldOut())) {
            retiredEvents.increment();
            coupons.findById(id).ifPresent(this::removeKeys);
        }
    }

    /**
     * Settled: admission is over (closed, or every unit of stock admitted), everything admitted was handed to Kafka,
     * MySQL holds an outcome (a wallet or a failure) for every admitted member, and Redis has all of them too (so no
     * member's status reads WAITING after the event settled).
     */
    static boolean settled(Coupon coupon, CouponState state) {
        CouponState.Status status = state.status();
        boolean admissionOver = status == CouponState.Status.CLOSED || status == CouponState.Status.SOLD_OUT;
        long decided = (long) coupon.issuedCount() + coupon.failedCount();
        return admissionOver
                && state.cursor() >= state.queued()
                && decided >= state.admitted()
                && state.done() >= decided;
    }

    /**
     * The worker writes an outcome to MySQL, then to Redis for status reads; Redis trails by milliseconds. When Redis
     * still has fewer results than MySQL had a pass earlier, they were lost: written on a primary that died before its
     * replica had them (a failover), with the batch's offsets committed, so no replay writes them again. Their members
     * would read WAITING until the event retired; the results are put back from MySQL instead.
     */
    private void repairIfResultsLost(Coupon coupon, CouponState state) {
        long id = coupon.id();
        long decided = (long) coupon.issuedCount() + coupon.failedCount();
        if (state.done() >= decided) {
            behind.remove(id);
            return;
        }
        Long earlier = behind.put(id, decided);
        if (earlier == null || state.done() >= earlier) {
            return; // behind now, but not behind what MySQL had a pass ago: results on their way
        }
        Long repaired = restore.repairResults(id, state.shards()).block(REDIS_WAIT);
        behind.remove(id);
        if (repaired != null && repaired > 0) {
            repairedResults.increment(repaired);
            log.warn(
                    "coupon {}: {} results MySQL has were missing in Redis (lost in a failover); put back",
                    id,
                    repaired);
        }
    }

    /**
     * A RANDOMIZED_START event settles only once its draw is recorded in MySQL (every entrant's place, or none): MySQL
     * answers for the members it left out after retirement.
     */
    private boolean drawRecorded(Coupon coupon) {
        return coupon.queueing() != Coupon.Queueing.RANDOMIZED_START
                || draws.find(coupon.id()).map(DrawRecord::recorded).orElse(true);
    }

    private void removeKeys(Coupon coupon) {
        long id = coupon.id();
        List<String> keys = new ArrayList<>();
        keys.add(CouponKeys.retired(id));
        keys.addAll(CouponKeys.state(id));
        // the gate's counts, as Redis has them last: from now on MySQL answers for them (a failure here leaves the keys
        // for the next pass, which saves again)
        gateCounts.save(id, coupon.stockShards());
        keys.addAll(StockShards.state(CouponKeys.tag(id), 0));
        Object inRedis = redis.opsForHash().get(CouponKeys.meta(id), "shards");
        int redisShards = inRedis == null ? 1 : Integer.parseInt(inRedis.toString());
        Long removed = redis.execute(RETIRE, keys, Long.toString(markTtl.toMillis()));
        // an event whose stock is in shards: each other shard's keys, with its own retired mark, one slot at a time;
        // for the count admission used (Redis' meta, read before the keys went) and MySQL's, should they differ
        java.util.Set<Integer> counts = new java.util.TreeSet<>(List.of(coupon.stockShards(), redisShards));
        for (int shards : counts) {
            for (int shard = 1; shard < shards; shard++) {
                String tag = StockShards.tag(id, shards, shard);
                List<String> shardKeys = new ArrayList<>();
                shardKeys.add(StockShards.retired(tag));
                shardKeys.addAll(StockShards.state(tag, shard));
                Long more = redis.execute(RETIRE, shardKeys, Long.toString(markTtl.toMillis()));
                removed = (removed == null ? 0 : removed) + (more == null ? 0 : more);
            }
        }
        coupons.markKeysRemoved(id, clock.instant());
        eventList.changed();
        retired.remember(coupon);
        gateCounts.forget(id);
        log.info("coupon {} retired: {} Redis keys removed; MySQL answers for it from now on", id, removed);
    }
}
