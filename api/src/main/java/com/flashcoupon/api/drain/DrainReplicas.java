package com.flashcoupon.api.drain;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether what the last claim saw has reached {@code coupon.redis.min-replicas} replicas (always, with none asked
 * for). An admission reaches Kafka only once it would outlive its primary: published, then lost with a primary that
 * died before replicating it, its place in Redis would go to a later member, and the stock would be promised twice. An
 * admission answers 202 only once replicated, but one still unconfirmed (or answered 503) sits in the queue as well;
 * short of replicas, this turn publishes nothing, and the next one asks again.
 */
final class DrainReplicas {

    private static final Logger log = LoggerFactory.getLogger(DrainReplicas.class);

    private final ScriptConnection scripts;
    private final int minReplicas;
    private final long timeoutMs;
    private final Counter unreplicated;

    DrainReplicas(ScriptConnection scripts, int minReplicas, long timeoutMs, MeterRegistry meters) {
        this.scripts = scripts;
        this.minReplicas = minReplicas;
        this.timeoutMs = timeoutMs;
        this.unreplicated = Counter.builder("coupon.drain.unreplicated")
                .description("Drain turns that published nothing because the queue had not reached"
                        + " coupon.redis.min-replicas replicas in time")
                .register(meters);
    }

    boolean replicated(long couponId) {
        if (minReplicas == 0) {
            return true;
        }
        Long acknowledged = scripts.awaitReplicas(CouponKeys.queue(couponId), minReplicas, timeoutMs)
                .block(DrainLease.CLAIM_WAIT);
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
}
