package com.flashcoupon.api.admission;

import com.flashcoupon.api.gate.GateChecks;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.shard.ScriptShardRedis;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.BackendFailures;
import com.flashcoupon.contract.StockShards;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Admission of an event whose stock is in shards (docs/architecture.md, "Stock shards"): the member is admitted on their
 * home shard ({@link ShardStock#admit}: limits, gate, window, cap and place in one script on its slot; stock moved
 * there from another shard when it is out), and their position counts the members admitted before them on every shard
 * ({@link ShardPositions}). The answer reads as admit.lua's, so the rest of the admission (replica wait, status,
 * metrics) is the same for any shard count.
 *
 * <p>Each instance keeps the shard count of the events it admitted to: admit.lua tells it the first time (outcome 11,
 * nothing charged), shard_admit.lua when it changed before the event opened (the count asked with is not the event's),
 * and a shard with no stock sends the member back to admit.lua, which restores the event when Redis lost it.
 */
@Component
class ShardAdmissions {

    private static final Logger log = LoggerFactory.getLogger(ShardAdmissions.class);

    private final ShardStock stock;
    private final ShardPositions positions;
    private final ScriptShardRedis redis;
    private final Map<Long, Integer> counts = new ConcurrentHashMap<>();

    ShardAdmissions(ShardStock stock, ShardPositions positions, ScriptShardRedis redis) {
        this.stock = stock;
        this.positions = positions;
        this.redis = redis;
    }

    /** The event's shard count as this instance last learned it; 1 (admit.lua decides) when it knows none. */
    int shards(long couponId) {
        return counts.getOrDefault(couponId, 1);
    }

    void learn(long couponId, int shards) {
        if (shards > 1) {
            counts.put(couponId, shards);
        } else {
            counts.remove(couponId);
        }
    }

    /**
     * Admits the member on their home shard of an event of {@code shards}. MIRROR_MISSING when a shard has no stock (the
     * caller forgets the count and asks admit.lua); an {@link Admission.Outcome#SHARDED} answer when the event has
     * another count (its {@code sequence}), which this instance now knows.
     */
    Mono<ScriptAnswer> admit(
            long couponId, int shards, String memberId, RateLimits.CouponLimits limits, GateChecks.Presented gate) {
        ShardStock.Request request = new ShardStock.Request(
                limits.address(), ShardStock.addressShare(limits.args(), shards), gate.claims(), gate.proof());
        return Mono.defer(() -> {
                    long epoch = redis.epoch();
                    // the replica wait is made on the home shard's primary: the one the admission wrote on
                    return stock.admit(couponId, shards, memberId, request)
                            .flatMap(result -> answer(couponId, shards, result)
                                    .map(admission -> new ScriptAnswer(
                                            admission,
                                            epoch,
                                            StockShards.queue(stock.tags(couponId, shards)[result.shard()]),
                                            true)));
                })
                .onErrorMap(ShardStock.Unsettled.class, unsettled -> {
                    log.warn("admission of coupon {} not settled: {}", couponId, unsettled.getMessage());
                    return ApiException.unavailable("The coupon's stock, moving between its shards,");
                })
                // the script may have run before its answer was lost: never claim that nothing was accepted
                .onErrorMap(BackendFailures::isBackendDown, error -> {
                    log.warn("admission of coupon {} failed with an unknown outcome: {}", couponId, error.toString());
                    return ApiException.admissionOutcomeUnknown(couponId);
                });
    }

    private Mono<Admission> answer(long couponId, int shards, ShardStock.Result result) {
        int rate = result.rate();
        return switch (result.outcome()) {
            case ADMITTED -> placed(couponId, shards, result, Admission.Outcome.ADMITTED, result.gateWouldRefuse());
            case ASKED_BEFORE ->
                result.result().isEmpty()
                        ? placed(couponId, shards, result, Admission.Outcome.ALREADY_ASKED, 0)
                        : Mono.just(new Admission(Admission.Outcome.ALREADY_ASKED, 0, 0, rate, result.result()));
            case MISSING -> {
                learn(couponId, 1);
                yield Mono.just(new Admission(Admission.Outcome.MIRROR_MISSING, 0, 0, 0));
            }
            case RESHARDED -> {
                learn(couponId, (int) result.detail());
                yield Mono.just(new Admission(Admission.Outcome.SHARDED, result.detail(), 0, 0));
            }
            case SOLD_OUT -> Mono.just(new Admission(Admission.Outcome.SOLD_OUT, 0, 0, rate));
            case NOT_OPEN_YET -> Mono.just(new Admission(Admission.Outcome.NOT_OPEN_YET, result.detail(), 0, rate));
            case CLOSED -> Mono.just(new Admission(Admission.Outcome.CLOSED, 0, 0, rate));
            case RATE_LIMITED ->
                Mono.just(new Admission(Admission.Outcome.RATE_LIMITED, result.detail(), result.waitMillis(), rate));
            case NOT_ANNOUNCED -> Mono.just(new Admission(Admission.Outcome.NOT_ANNOUNCED, 0, 0, rate));
            case GATE_REFUSED -> Mono.just(new Admission(Admission.Outcome.GATE_REFUSED, result.detail(), 0, rate));
            // a fair start across shards (ShardDraws): entrants, drawAt, places, as admit.lua answers them
            case DRAW_ENTERED ->
                Mono.just(new Admission(
                        Admission.Outcome.DRAW_ENTERED,
                        result.detail(),
                        result.time(),
                        rate,
                        result.result(),
                        result.sequence()));
            case DRAW_ASKED_BEFORE ->
                Mono.just(new Admission(
                        Admission.Outcome.DRAW_ASKED_BEFORE,
                        result.detail(),
                        result.time(),
                        rate,
                        result.result(),
                        result.sequence()));
        };
    }

    /**
     * A member holding a place: their position counts every member admitted before them on any shard, less those
     * done, as {@code sequence - done} does for an event of one shard. A member just admitted is placed from what this
     * instance saw of the other shards ({@link ShardPositions#admitted}); one asking again, exactly (a call per shard).
     */
    private Mono<Admission> placed(
            long couponId, int shards, ShardStock.Result result, Admission.Outcome outcome, long gateWould) {
        // while a fair start's draw is not made, the places it holds come first: read exactly (ShardPositions#place)
        Mono<ShardPositions.Place> place = outcome == Admission.Outcome.ADMITTED && !result.drawPending()
                ? positions.admitted(
                        couponId, shards, result.shard(), result.detail(), result.time(), result.homeDone())
                : positions.place(couponId, shards, result.shard(), result.time());
        return place.map(
                found -> new Admission(outcome, found.ahead() + 1, found.done(), result.rate(), "", gateWould));
    }
}
