package com.flashcoupon.api.drain;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.coupon.EventList;
import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.health.OutageLog;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations.TypedTuple;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Service;

/**
 * Moves admitted requests from each coupon's Redis queue to Kafka, at the coupon's rate, at least once: the cursor
 * advances only after the broker acknowledged the whole batch, so a crash in between re-publishes the batch and the
 * worker's unique key turns the repeat into a no-op. With {@code coupon.redis.min-replicas}, only what its Redis replicas
 * confirmed is published. One api instance drains a coupon at a time (a lease in Redis).
 * Runs on the scheduler's thread, never on an event loop, so it may block.
 */
@Service
class Drainer {

    private static final Logger log = LoggerFactory.getLogger(Drainer.class);

    @SuppressWarnings("rawtypes")
    /**
     * drain_claim.lua, with draw.lua in front: the tick closes a RANDOMIZED_START event's window once it is over, and
     * publishes nothing of the coupon until its draw is made.
     */
    static List<String> claimKeys(long couponId) {
        return List.of(
                CouponKeys.lease(couponId),
                CouponKeys.meta(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.cursor(couponId),
                CouponKeys.done(couponId),
                CouponKeys.stats(couponId),
                CouponKeys.seq(couponId),
                CouponKeys.draw(couponId));
    }

    static final RedisScript<List> CLAIM =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/drain_claim.lua")), List.class);

    /** The same claim, on the connection whose {@code WAIT} then covers it (see {@link #claim}). */
    private static final ScriptConnection.Script CLAIM_SCRIPT = ScriptConnection.Script.of(CLAIM.getScriptAsString());

    /** The longest wait for a claim on the replica-waiting path: the command and the replica time-outs are shorter. */
    private static final Duration CLAIM_WAIT = Duration.ofSeconds(10);

    private static final RedisScript<Long> ADVANCE =
            RedisScript.of(LuaScripts.text("scripts/drain_advance.lua"), Long.class);

    /** Sets fields of the coupon's meta hash only while it exists, so a retirement meanwhile is not undone. */
    private static final RedisScript<Long> SET_RATE = RedisScript.of(
            "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
                    + "redis.call('HSET', KEYS[1], 'effRate', ARGV[1], 'effReason', ARGV[2]) return 1",
            Long.class);

    /** A worker write latency older than this says nothing about MySQL now (nothing was written for the coupon). */
    static final long FRESH_WRITE_MS = 5_000;

    private static final RedisScript<Long> RENEW =
            RedisScript.of(LuaScripts.text("scripts/drain_renew.lua"), Long.class);

    /** The longest wait for Kafka's acknowledgement of a batch: the producer's {@code delivery.timeout.ms}. */
    static final Duration ACK_WAIT = Duration.ofSeconds(30);

    private final StringRedisTemplate redis;
    private final ScriptConnection scripts;
    private final int minReplicas;
    private final long replicaTimeoutMs;
    private final KafkaTemplate<String, Object> kafka;
    private final CouponRepository coupons;
    private final EventList eventList;
    private final ApiProperties.Drain settings;
    private final ObjectProvider<PublishHook> hooks;
    private final Clock clock;
    private final DrainPacer pacer;
    private final String owner;
    private final Counter published;
    private final Counter unreplicated;
    private final OutageLog outage;
    private final RateGovernor governor;
    private final IssuePace pace;
    private final MeterRegistry meters;
    private final Map<Long, List<Meter>> rateMeters = new HashMap<>();

    /** The last list of events MySQL gave, drained while MySQL cannot answer. */
    private volatile List<Long> events = List.of();

    Drainer(
            StringRedisTemplate redis,
            ScriptConnection scripts,
            KafkaTemplate<String, Object> kafka,
            CouponRepository coupons,
            EventList eventList,
            ApiProperties properties,
            ObjectProvider<PublishHook> hooks,
            Clock clock,
            IssuePace pace,
            MeterRegistry meters) {
        this.pace = pace;
        this.meters = meters;
        this.governor = new RateGovernor(properties.drain().adaptive());
        this.redis = redis;
        this.scripts = scripts;
        this.minReplicas = properties.redis().minReplicas();
        this.replicaTimeoutMs = properties.redis().replicaTimeout().toMillis();
        this.kafka = kafka;
        this.coupons = coupons;
        this.eventList = eventList;
        this.settings = properties.drain();
        this.hooks = hooks;
        this.clock = clock;
        this.pacer = new DrainPacer(settings.tick().toNanos());
        this.outage = new OutageLog(log, "draining");
        this.owner = ManagementFactory.getRuntimeMXBean().getName() + "/" + UUID.randomUUID();
        this.published = Counter.builder("coupon.drain.published")
                .description("Admitted requests published to Kafka")
                .register(meters);
        this.unreplicated = Counter.builder("coupon.drain.unreplicated")
                .description("Drain turns that published nothing because the queue had not reached"
                        + " coupon.redis.min-replicas replicas in time")
                .register(meters);
    }

    /**
     * One tick: every event that still has state in Redis, as MySQL lists them (a list with no key of its own in
     * Redis, so it works on a Redis Cluster and no event can fall out of it while it has requests to publish; read
     * again only when it changed, {@link EventList}). When
     * MySQL cannot answer, the last list it gave is used. A failing coupon does not hold up the others.
     */
    void drainAll() {
        List<Long> ids;
        try {
            ids = eventList.withRedisState();
            events = ids;
            if (ids.size() == CouponRepository.MAX_LIVE_EVENTS) {
                log.warn(
                        "{} events have state in Redis: only the newest are drained; close or retire past events",
                        ids.size());
            }
        } catch (RuntimeException e) {
            ids = events;
            log.debug("the list of events to drain could not be read from MySQL; using the last one: {}", e.toString());
        }
        pacer.retainOnly(ids);
        governor.retainOnly(ids);
        pace.retainOnly(ids);
        retainRateMeters(ids);
        boolean allDrained = true;
        for (long couponId : ids) {
            try {
                drain(couponId);
            } catch (RuntimeException e) {
                allDrained = false;
                outage.failed("coupon " + couponId, e);
            }
        }
        if (allDrained) {
            outage.succeeded();
        }
    }

    /**
     * Publishes what this coupon's rate allows now, batch by batch. The pacer holds at most one tick's worth, so the
     * loop ends within {@code rate x tick / maxBatch + 1} batches.
     */
    void drain(long couponId) {
        boolean first = true;
        double rate = 0;
        long started = System.nanoTime();
        while (true) {
            // Back to the tick after one tick's time: a batch that takes time (Kafka's ack, MySQL's mark) refills the
            // pacer while it runs, so the loop could otherwise go on for as long as there is a backlog, and neither
            // the other coupons nor this one's effective rate (decided once per call) would get their turn.
            if (!first && System.nanoTime() - started >= settings.tick().toNanos()) {
                return;
            }
            List<?> claim = claim(couponId);
            if (claim == null) {
                return;
            }
            boolean owned = number(claim, 0) == 1;
            if (first) {
                rate = pace(couponId, claim, owned);
                first = false;
            }
            if (!owned) {
                return;
            }
            long cursor = number(claim, 1);
            long queued = number(claim, 2);
            long allowed = pacer.available(couponId, rate, queued - cursor, System.nanoTime());
            int count = (int) Math.min(allowed, settings.maxBatch());
            if (count <= 0 || !replicated(couponId)) {
                return;
            }
            publishBatch(couponId, cursor, count, number(claim, 4), queued);
            pacer.spend(couponId, count);
        }
    }

    /**
     * Runs drain_claim.lua. With {@code coupon.redis.min-replicas}, on the api's own script connection, so that the
     * {@code WAIT} of {@link #replicated} is sent where the claim's write was: it then covers every admission in the
     * queue when the claim ran (a primary replicates its writes in the order it made them), whichever instance wrote
     * them.
     */
    private List<?> claim(long couponId) {
        String ttl = Long.toString(settings.leaseTtl().toMillis());
        if (minReplicas == 0) {
            return redis.execute(CLAIM, claimKeys(couponId), owner, ttl);
        }
        return scripts.eval(CLAIM_SCRIPT, claimKeys(couponId).toArray(String[]::new), owner, ttl)
                .block(CLAIM_WAIT);
    }

    /**
     * Whether what the last claim saw has reached {@code coupon.redis.min-replicas} replicas (always, with none asked
     * for). An admission reaches Kafka only once it would outlive its primary: published, then lost with a primary
     * that died before replicating it, its place in Redis would go to a later member, and the stock would be promised
     * twice. An admission answers 202 only once replicated, but one still unconfirmed (or answered 503) sits in the
     * queue as well; short of replicas, this turn publishes nothing, and the next one asks again.
     */
    private boolean replicated(long couponId) {
        if (minReplicas == 0) {
            return true;
        }
        Long acknowledged = scripts.awaitReplicas(CouponKeys.queue(couponId), minReplicas, replicaTimeoutMs)
                .block(CLAIM_WAIT);
        if (acknowledged != null && acknowledged >= minReplicas) {
            return true;
        }
        unreplicated.increment();
        log.debug(
                "coupon {}: {} of {} replicas confirmed the queue; not published yet",
                couponId,
                acknowledged,
                minReplicas);
        return false;
    }

    /**
     * Once per tick and coupon, on every instance: the effective rate (decided here when this instance drains the
     * coupon, read from Redis otherwise), fed with the coupon's progress to the waiting estimates.
     */
    private double pace(long couponId, List<?> claim, boolean owned) {
        int configured = (int) number(claim, 3);
        if (configured <= 0) {
            return 0; // not in Redis
        }
        long cursor = number(claim, 1);
        long queued = number(claim, 2);
        long base = number(claim, 4);
        long done = number(claim, 5);
        String storedRate = text(claim, 6);
        double effective = storedRate.isEmpty() ? configured : Double.parseDouble(storedRate);
        String reason = text(claim, 7);
        if (owned) {
            String writeMs = text(claim, 8);
            long writeMillis = writeMs.isEmpty() || number(claim, 9) > FRESH_WRITE_MS ? 0 : Long.parseLong(writeMs);
            long inFlight = Math.max(0, base + cursor - done);
            governor.resume(couponId, effective, reason);
            RateGovernor.Decision decision = governor.decide(
                    couponId,
                    configured,
                    new RateGovernor.Signals(writeMillis, inFlight, done, pace.clearingRate(couponId)),
                    System.nanoTime());
            if (decision.changed() || storedRate.isEmpty() != (decision.rate() >= configured)) {
                storeRate(couponId, decision, configured);
            }
            effective = decision.rate();
            reason = decision.reason();
        } else {
            governor.forget(couponId);
        }
        registerRateMeters(couponId);
        if (log.isDebugEnabled()) {
            log.debug(
                    "coupon {}: owned {}, cursor {}, queued {}, base {}, done {}, rate {}, effective {} ({})",
                    couponId,
                    owned,
                    cursor,
                    queued,
                    base,
                    done,
                    configured,
                    effective,
                    reason);
        }
        pace.observe(couponId, done, base + cursor, base + queued, configured, effective, reason, System.nanoTime());
        return Math.min(effective, configured);
    }

    /** Leaves the effective rate in Redis for the other instances' estimates and for whoever drains next. */
    private void storeRate(long couponId, RateGovernor.Decision decision, int configured) {
        boolean cut = decision.rate() < configured;
        redis.execute(
                SET_RATE,
                List.of(CouponKeys.meta(couponId)),
                cut ? Double.toString(Math.round(decision.rate() * 100) / 100.0) : "",
                decision.reason());
        if (decision.changed() && cut && !decision.reason().isEmpty()) {
            String kind =
                    decision.reason().substring(0, Math.max(0, decision.reason().indexOf(':')));
            log.warn(
                    "coupon {}: effective issue rate {} /s (configured {}): {}",
                    couponId,
                    Math.round(decision.rate() * 10) / 10.0,
                    configured,
                    decision.reason());
            meters.counter("coupon.drain.rate.cuts", "coupon", Long.toString(couponId), "reason", kind)
                    .increment();
        }
    }

    /** The coupon's configured and effective rates as gauges, while it is drained. */
    private void registerRateMeters(long couponId) {
        rateMeters.computeIfAbsent(couponId, id -> {
            String tag = Long.toString(id);
            return List.of(
                    Gauge.builder(
                                    "coupon.drain.rate.effective",
                                    pace,
                                    p -> p.snapshot(id).effectiveRate())
                            .description("The drainer's effective issue rate per second (follows the database)")
                            .tag("coupon", tag)
                            .register(meters),
                    Gauge.builder(
                                    "coupon.drain.rate.configured",
                                    pace,
                                    p -> p.snapshot(id).configuredRate())
                            .description("The operator's issue rate per second")
                            .tag("coupon", tag)
                            .register(meters),
                    Gauge.builder(
                                    "coupon.drain.rate.measured",
                                    pace,
                                    p -> p.snapshot(id).measuredRate())
                            .description("Issues per second as the api measures them (while there is a backlog)")
                            .tag("coupon", tag)
                            .register(meters));
        });
    }

    private void retainRateMeters(List<Long> ids) {
        Set<Long> live = Set.copyOf(ids);
        rateMeters.entrySet().removeIf(entry -> {
            if (live.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().forEach(meters::remove);
            return true;
        });
    }

    private void publishBatch(long couponId, long cursor, int count, long base, long queued) {
        Set<TypedTuple<String>> entries =
                redis.opsForZSet().rangeWithScores(CouponKeys.queue(couponId), cursor, cursor + count - 1);
        if (entries == null || entries.isEmpty()) {
            return;
        }
        long now = clock.millis();
        List<CompletableFuture<?>> acks = new ArrayList<>(entries.size());
        for (TypedTuple<String> entry : entries) {
            var request = new IssueRequested(
                    couponId, entry.getValue(), entry.getScore().longValue(), now);
            acks.add(kafka.send(Topics.ISSUE_REQUESTED, Topics.key(couponId), request));
        }
        awaitAcknowledged(couponId, CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)));
        hooks.ifAvailable(hook -> hook.published(couponId, cursor, entries.size()));
        long next = cursor + entries.size();
        recordPublished(couponId, base + next, base + queued);
        Long moved = redis.execute(
                ADVANCE,
                List.of(CouponKeys.lease(couponId), CouponKeys.cursor(couponId)),
                owner,
                Long.toString(cursor),
                Long.toString(next));
        published.increment(entries.size());
        if (moved == null || moved == 0) {
            log.warn("coupon {}: lost the drain lease while publishing; the batch may be published twice", couponId);
            throw new IllegalStateException("lost the drain lease");
        }
    }

    /**
     * Raises MySQL's published high-water mark before the cursor moves: should Redis die in between, the restore still
     * counts this batch in its stock floor (it is in Kafka). What was admitted is recorded too: after a Redis loss,
     * what was seen but never published is counted as unknown. MySQL not answering does not stop the drain (the
     * cursor in Redis is right; the next batch raises the mark).
     */
    private void recordPublished(long couponId, long publishedCount, long admittedSeen) {
        try {
            coupons.recordPublished(couponId, publishedCount, admittedSeen);
        } catch (RuntimeException e) {
            log.warn(
                    "coupon {}: published_count not recorded in MySQL, the next batch will: {}",
                    couponId,
                    e.toString());
        }
    }

    /**
     * Waits for Kafka to acknowledge the whole batch, at most {@link #ACK_WAIT}, and renews this instance's lease every
     * third of its time-to-live meanwhile. A lease shorter than the wait would otherwise expire while a slow broker
     * holds the batch, another instance would claim the coupon and publish the same batch again (and again, for as
     * long as the broker stays slow). If the lease is lost anyway (Redis unreachable for longer than its
     * time-to-live), the batch is given up: the cursor stays, and whoever owns the coupon publishes it again.
     */
    private void awaitAcknowledged(long couponId, CompletableFuture<Void> acknowledged) {
        long renewEvery = Math.max(1, settings.leaseTtl().toMillis() / 3);
        long deadline = System.nanoTime() + ACK_WAIT.toNanos();
        while (true) {
            try {
                acknowledged.get(renewEvery, TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException stillWaiting) {
                if (System.nanoTime() - deadline >= 0) {
                    throw new IllegalStateException(
                            "Kafka did not acknowledge the batch within " + ACK_WAIT + "; it will be published again");
                }
                Long renewed = redis.execute(
                        RENEW,
                        List.of(CouponKeys.lease(couponId)),
                        owner,
                        Long.toString(settings.leaseTtl().toMillis()));
                if (renewed == null || renewed == 0) {
                    throw new IllegalStateException("lost the drain lease while waiting for Kafka's acknowledgement");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while publishing", e);
            } catch (ExecutionException e) {
                throw new IllegalStateException(
                        "Kafka did not acknowledge the batch; it will be published again", e.getCause());
            }
        }
    }
}
