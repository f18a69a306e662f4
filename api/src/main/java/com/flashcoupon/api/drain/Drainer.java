package com.flashcoupon.api.drain;

import static com.flashcoupon.api.redis.RedisReplies.number;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.coupon.EventList;
import com.flashcoupon.api.health.BackendWatch;
import com.flashcoupon.api.health.OutageLog;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.ScriptShardRedis;
import com.flashcoupon.api.shard.ShardOrder;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.stereotype.Service;

/**
 * Moves admitted requests from each coupon's Redis queue to Kafka, at the coupon's rate, at least once (a batch at a
 * time, {@link BatchPublisher}). With {@code coupon.redis.min-replicas}, only what its Redis replicas confirmed is
 * published ({@link DrainReplicas}). One api instance drains a coupon at a time ({@link DrainLease}); an instance that
 * cannot publish (Kafka down for it, or a batch that failed) gives its leases up so another takes over at once. MySQL
 * is never waited on for longer than a tick ({@link DrainLedger}), so a slow database neither stalls the drain nor has
 * a batch published twice. Runs on the scheduler's thread, never on an event loop, so it may block.
 */
@Service
class Drainer implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(Drainer.class);

    private final ApiProperties.Drain settings;
    private final DrainPacer pacer;
    private final DrainLease lease;
    private final DrainReplicas replicas;
    private final DrainRates rates;
    private final DrainLedger ledger;
    private final BatchPublisher publisher;
    private final BackendWatch backends;
    private final OutageLog outage;
    private final ShardDrain shardDrain;
    private final Map<Long, Long> pausedUntil = new HashMap<>();
    private boolean kafkaWasDown;

    Drainer(
            StringRedisTemplate redis,
            ScriptConnection scripts,
            KafkaTemplate<String, Object> kafka,
            RecordSignature signature,
            CouponRepository coupons,
            EventList eventList,
            ApiProperties properties,
            ObjectProvider<PublishHook> hooks,
            Clock clock,
            IssuePace pace,
            BackendWatch backends,
            MeterRegistry meters,
            ShardOrder shardOrder,
            ShardPositions shardPositions,
            ShardStock shardStock,
            ScriptShardRedis shardRedis) {
        this.settings = properties.drain();
        this.backends = backends;
        this.pacer = new DrainPacer(settings.tick().toNanos());
        this.lease = new DrainLease(redis, scripts, properties.redis().minReplicas(), settings.leaseTtl());
        this.replicas = new DrainReplicas(
                scripts,
                properties.redis().minReplicas(),
                properties.redis().replicaTimeout().toMillis(),
                meters);
        this.rates = new DrainRates(redis, settings, pace, meters);
        this.ledger = new DrainLedger(coupons, eventList, settings.tick(), meters);
        this.publisher =
                new BatchPublisher(redis, kafka, signature, lease, ledger, hooks, clock, settings.leaseTtl(), meters);
        this.outage = new OutageLog(log, "draining");
        this.shardDrain = new ShardDrain(
                shardOrder,
                shardPositions,
                shardStock,
                shardRedis,
                pacer,
                rates,
                lease,
                ledger,
                publisher,
                clock,
                settings.tick(),
                settings.maxBatch(),
                properties.redis().minReplicas() > 0);
    }

    /**
     * One tick: every event that still has state in Redis ({@link DrainLedger#events}). A failing coupon does not hold
     * up the others. While Kafka does not answer this instance, it claims nothing and gives back what it holds.
     */
    void drainAll() {
        if (!kafkaAnswers()) {
            return;
        }
        List<Long> ids = ledger.events();
        Set<Long> live = Set.copyOf(ids);
        pacer.retainOnly(live);
        rates.retainOnly(live);
        lease.retainOnly(live);
        shardDrain.retainOnly(live);
        pausedUntil.keySet().retainAll(live);
        boolean allDrained = true;
        for (long couponId : ids) {
            Long paused = pausedUntil.get(couponId);
            if (paused != null && System.nanoTime() - paused < 0) {
                continue;
            }
            pausedUntil.remove(couponId);
            try {
                drain(couponId);
            } catch (RuntimeException e) {
                allDrained = false;
                giveUp(couponId);
                outage.failed("coupon " + couponId, e);
            }
        }
        if (allDrained) {
            outage.succeeded();
        }
    }

    /**
     * After a failed batch: the lease goes back at once and this instance leaves the coupon alone for a lease's
     * time-to-live, so that another instance claims it first (this one would otherwise claim again on its next tick,
     * renew, and keep a coupon it cannot publish).
     */
    private void giveUp(long couponId) {
        lease.release(couponId);
        pausedUntil.put(couponId, System.nanoTime() + settings.leaseTtl().toNanos());
    }

    /**
     * Whether this instance can publish: Kafka answered its last probe. When it does not (the broker is unreachable from
     * here while Redis is not), a claim would keep the coupon's lease renewed and stall it on every instance.
     */
    private boolean kafkaAnswers() {
        boolean down = !backends.kafkaAnswers();
        if (down) {
            if (!kafkaWasDown) {
                log.warn("Kafka does not answer this instance: its drain leases are given up, other instances drain");
            }
            lease.releaseAll();
        } else if (kafkaWasDown) {
            log.info("Kafka answers again: this instance drains again");
        }
        kafkaWasDown = down;
        return !down;
    }

    /**
     * Publishes what this coupon's rate allows now, batch by batch. The pacer holds at most one tick's worth, so the
     * loop ends within {@code rate x tick / maxBatch + 1} batches. A batch that fails gives the lease up.
     */
    void drain(long couponId) {
        boolean first = true;
        double rate = 0;
        long started = System.nanoTime();
        while (true) {
            // Back to the tick after one tick's time: a batch that takes time (Kafka's ack) refills the pacer while it
            // runs, so the loop could otherwise go on for as long as there is a backlog, and neither the other coupons
            // nor this one's effective rate (decided once per call) would get their turn.
            if (!first && System.nanoTime() - started >= settings.tick().toNanos()) {
                return;
            }
            List<?> claim = lease.claim(couponId);
            if (claim == null) {
                return;
            }
            boolean owned = number(claim, 0) == 1;
            int shards = claim.size() > 10 ? (int) number(claim, 10) : 1;
            if (shards > 1) {
                shardDrain.drain(couponId, shards, claim, owned);
                return;
            }
            if (first) {
                rate = rates.decide(couponId, claim, owned);
                first = false;
            }
            if (!owned) {
                return;
            }
            if (rate <= 0) {
                lease.release(couponId); // its rate is not a number: nothing can be paced
                return;
            }
            long cursor = number(claim, 1);
            long queued = number(claim, 2);
            long allowed = pacer.available(couponId, rate, queued - cursor, System.nanoTime());
            int count = (int) Math.min(allowed, settings.maxBatch());
            if (count <= 0 || !replicas.replicated(couponId)) {
                return;
            }
            // spent before sending: what goes to Kafka counts against the rate whether or not the cursor then moves,
            // so a batch that must be sent again never takes the coupon above its rate
            pacer.spend(couponId, count);
            int sent = publisher.publish(couponId, cursor, count, number(claim, 4), queued);
            rates.published(couponId, Math.max(0, number(claim, 4)) + cursor + sent);
        }
    }

    @Override
    public void destroy() {
        ledger.close();
    }
}
