package com.flashcoupon.api.admission;

import com.flashcoupon.api.gate.GateChecks;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.BackendFailures;
import com.flashcoupon.contract.CouponKeys;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The script that decides one admission: {@code admit.lua} on the event's slot, or, for an event whose stock is in
 * shards, {@code shard_admit.lua} on the member's home shard ({@link ShardAdmissions}; admit.lua tells this instance
 * the count the first time). A shard without stock sends the member back to admit.lua, which restores an event Redis
 * lost. Either answer reads as admit.lua's, so {@link AdmissionService} treats every event alike.
 */
@Component
class AdmissionScripts {

    private static final Logger log = LoggerFactory.getLogger(AdmissionScripts.class);

    /** Hops between admit.lua and the shards one admission may take (a count learned, changed, or stock lost). */
    private static final int SHARD_HOPS = 3;

    /** Taken when the bean is created, so the script files are read at start-up and never on an event loop. */
    private final ScriptConnection.Script script = AdmitScript.SCRIPT;

    private final ScriptConnection redis;
    private final ShardAdmissions sharded;

    AdmissionScripts(ScriptConnection redis, ShardAdmissions sharded) {
        this.redis = redis;
        this.sharded = sharded;
    }

    /**
     * Runs the admission: admit.lua on the event's slot, or shard_admit.lua on the member's home shard for an event
     * whose stock is in shards ({@link ShardAdmissions}; admit.lua tells this instance the count the first time). A
     * shard without stock sends the member back to admit.lua, which restores an event Redis lost.
     */
    Mono<ScriptAnswer> run(long couponId, String memberId, RateLimits.CouponLimits charged, GateChecks.Presented gate) {
        int shards = sharded.shards(couponId);
        return hop(
                couponId,
                memberId,
                charged,
                gate,
                shards > 1
                        ? sharded.admit(couponId, shards, memberId, charged, gate)
                        : runScript(couponId, memberId, charged, gate),
                SHARD_HOPS,
                false);
    }

    private Mono<ScriptAnswer> hop(
            long couponId,
            String memberId,
            RateLimits.CouponLimits charged,
            GateChecks.Presented gate,
            Mono<ScriptAnswer> step,
            int hops,
            boolean shardMissing) {
        return step.flatMap(ran -> {
            Admission admission = ran.admission();
            Mono<ScriptAnswer> next;
            boolean missing = shardMissing;
            if (admission.outcome() == Admission.Outcome.SHARDED) {
                sharded.learn(couponId, (int) admission.sequence());
                next = sharded.admit(couponId, (int) admission.sequence(), memberId, charged, gate);
            } else if (admission.outcome() == Admission.Outcome.MIRROR_MISSING && ran.onShard()) {
                if (shardMissing) {
                    // the event says this count and the shard still has no stock (a deal that failed part way):
                    // answered as a missing mirror, so the admission mirrors the event again, which deals it
                    return Mono.just(new ScriptAnswer(admission, ran.epoch(), ran.replicaKey(), false));
                }
                next = runScript(couponId, memberId, charged, gate);
                missing = true;
            } else {
                return Mono.just(ran);
            }
            return hops > 0
                    ? hop(couponId, memberId, charged, gate, next, hops - 1, missing)
                    : Mono.error(ApiException.unavailable("The coupon's admission state"));
        });
    }

    private Mono<ScriptAnswer> runScript(
            long couponId, String memberId, RateLimits.CouponLimits charged, GateChecks.Presented gate) {
        return Mono.defer(() -> {
                    long epoch = redis.epoch();
                    return redis.eval(
                                    script,
                                    AdmitScript.keys(couponId, charged),
                                    AdmitScript.args(memberId, charged, gate))
                            .map(reply -> new ScriptAnswer(
                                    AdmitScript.read(reply), epoch, CouponKeys.queue(couponId), false));
                })
                // the script may have run before its answer was lost: never claim that nothing was accepted
                .onErrorMap(BackendFailures::isBackendDown, error -> {
                    log.warn("admission of coupon {} failed with an unknown outcome: {}", couponId, error.toString());
                    return ApiException.admissionOutcomeUnknown(couponId);
                });
    }

    /** The event's stock shards as this instance knows them (1 when it knows of none). */
    int shards(long couponId) {
        return sharded.shards(couponId);
    }
}
