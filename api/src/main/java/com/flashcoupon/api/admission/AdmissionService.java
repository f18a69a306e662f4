package com.flashcoupon.api.admission;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.coupon.RetiredCoupons;
import com.flashcoupon.api.gate.GateChecks;
import com.flashcoupon.api.gate.RetiredGate;
import com.flashcoupon.api.health.BackendWatch;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.status.EntryReceipts;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.api.status.IssueStatus;
import com.flashcoupon.api.status.StatusService;
import com.flashcoupon.api.web.ApiException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * First-come admission: one Lua script decides (the member's and the address's rate limits, window, duplicate, stock
 * cap, sequence, ZADD NX), in one round trip to the coupon's slot. With {@code coupon.redis.min-replicas}, a 202 or a
 * 200 is answered only once the admission reached that many replicas (a group-committed {@code WAIT}). Redis unreachable
 * fails the request (503), never admits it; an answer lost after the script was sent is a 503 that says the outcome is
 * unknown (the retry tells); a coupon missing from Redis is restored from MySQL before Redis decides. A retired event
 * is answered from MySQL alone, exactly as Redis answered before it was retired.
 */
@Service
class AdmissionService {

    private static final Logger log = LoggerFactory.getLogger(AdmissionService.class);

    private final ScriptConnection redis;

    private final RateLimits limits;
    private final int minReplicas;
    private final long replicaTimeoutMs;
    private final Counter notReplicated;

    private final CouponMirror mirror;
    private final StatusService statuses;
    private final AdmissionGate gate;
    private final BackendWatch backends;
    private final RetiredCoupons retired;
    private final Clock clock;
    private final IssuePace pace;
    private final Map<Admission.Outcome, Counter> outcomes = new EnumMap<>(Admission.Outcome.class);
    private final Counter localRefusals;
    private final Timer latency;
    private final GateChecks gateChecks;
    private final RetiredAnswers retiredAnswers;

    private final EntryReceipts receipts;
    private final AdmissionScripts scripts;

    AdmissionService(
            ScriptConnection redis,
            RateLimits limits,
            ApiProperties properties,
            CouponMirror mirror,
            StatusService statuses,
            AdmissionGate gate,
            BackendWatch backends,
            RetiredCoupons retired,
            Clock clock,
            IssuePace pace,
            MeterRegistry meters,
            GateChecks gateChecks,
            RetiredGate retiredGate,
            EntryReceipts receipts,
            AdmissionScripts scripts) {
        this.scripts = scripts;
        this.receipts = receipts;
        this.gateChecks = gateChecks;
        this.pace = pace;
        this.backends = backends;
        this.retired = retired;
        this.clock = clock;
        this.redis = redis;
        this.limits = limits;
        this.minReplicas = properties.redis().minReplicas();
        this.replicaTimeoutMs = properties.redis().replicaTimeout().toMillis();
        this.notReplicated = Counter.builder("coupon.admissions.not.replicated")
                .description("Admissions answered 503 because they did not reach coupon.redis.min-replicas in time")
                .register(meters);
        this.gate = gate;
        this.localRefusals = Counter.builder("coupon.admissions.local.refusals")
                .description("Refusals answered from what this instance knows, without a Redis round trip")
                .register(meters);
        this.mirror = mirror;
        this.statuses = statuses;
        for (Admission.Outcome outcome : Admission.Outcome.values()) {
            outcomes.put(
                    outcome,
                    Counter.builder("coupon.admissions")
                            .description("Admission answers by outcome")
                            .tag("outcome", outcome.name())
                            .register(meters));
        }
        this.retiredAnswers = new RetiredAnswers(clock, statuses, retiredGate, gateChecks, outcomes);
        this.latency = Timer.builder("coupon.admission.latency")
                .description("Time to decide one admission, whatever the outcome (Redis script, restore, status)")
                .publishPercentileHistogram()
                .register(meters);
    }

    /** Admits the member, or fails with the contract's problem; {@code newlyAdmitted} tells 202 from 200. */
    Mono<Answer> admit(long couponId, String memberId, ServerHttpRequest request) {
        return admit(couponId, memberId, Map.of(), request);
    }

    /** As above, with the member's token claims for the gate's claim rules (issue 26). */
    Mono<Answer> admit(long couponId, String memberId, Map<String, Object> claims, ServerHttpRequest request) {
        Timer.Sample started = Timer.start();
        Mono<GateChecks.Presented> reading =
                Mono.fromSupplier(() -> gateChecks.presented(couponId, memberId, claims, request));
        // an Argon2id proof costs one memory-hard hash: off the event loop, on the CPU-bound workers
        return (gateChecks.memoryHard(request) ? reading.subscribeOn(Schedulers.parallel()) : reading)
                .flatMap(presented -> {
                    return decide(couponId, memberId, request, presented)
                            // a member in a fair start's window: their signed entry receipt (function 2)
                            .flatMap(answer -> receipts.withReceipt(answer.status())
                                    .map(signed -> signed == answer.status()
                                            ? answer
                                            : new Answer(answer.newlyAdmitted(), signed)))
                            .doFinally(signal -> started.stop(latency));
                });
    }

    private Mono<Answer> decide(
            long couponId, String memberId, ServerHttpRequest request, GateChecks.Presented presented) {
        String down = backends.down();
        if (down != null) {
            return Mono.error(ApiException.unavailable(down));
        }
        RateLimits.CouponLimits charged = limits.forCoupon(couponId, memberId, request);
        var gone = retired.find(couponId);
        if (gone.isPresent()) {
            return limits.charge(charged).then(retiredAnswers.answer(gone.get(), memberId, presented));
        }
        var refusal = gate.localRefusal(couponId, memberId);
        if (refusal.isPresent()) {
            outcomes.get(refusal.get()).increment();
            localRefusals.increment();
            return answer(couponId, memberId, new Admission(refusal.get(), 0, 0, 0));
        }
        return scripts.run(couponId, memberId, charged, presented)
                .flatMap(ran -> ran.admission().outcome() != Admission.Outcome.MIRROR_MISSING
                        ? checked(couponId, memberId, charged, presented, request, ran)
                        : mirror.restoreOrNotFound(couponId, limits.chargeOverall(memberId, request))
                                .flatMap(coupon -> coupon.retired()
                                        ? limits.charge(charged)
                                                .then(retiredAnswers.answer(coupon, memberId, presented))
                                        : scripts.run(couponId, memberId, charged, presented)
                                                .flatMap(again -> checked(
                                                        couponId, memberId, charged, presented, request, again))));
    }

    /** The gate (issue 26): a SITEVERIFY event's token is checked by its service, then gate.lua is asked again. */
    private Mono<Answer> checked(
            long couponId,
            String memberId,
            RateLimits.CouponLimits charged,
            GateChecks.Presented presented,
            ServerHttpRequest request,
            ScriptAnswer ran) {
        if (ran.admission().outcome() != Admission.Outcome.GATE_REFUSED
                || ran.admission().sequence() != GateChecks.CHECK_TOKEN) {
            return decided(couponId, memberId, ran);
        }
        return gateChecks
                .verified(presented, request)
                .flatMap(verified -> scripts.run(couponId, memberId, charged, verified)
                        .flatMap(again -> decided(couponId, memberId, again))
                        .onErrorMap(error -> gateChecks.withCheck(error, verified)));
    }

    private Mono<Answer> decided(long couponId, String memberId, ScriptAnswer ran) {
        Admission admission = ran.admission();
        gate.learn(couponId, admission, scripts.shards(couponId));
        // counted, and the estimate kept for scoring, once the answer stands: after the replica wait, which may turn a
        // 202 into a 503 (F18)
        Mono<Answer> answer = Mono.defer(() -> {
            outcomes.get(admission.outcome()).increment();
            if (admission.outcome() == Admission.Outcome.ADMITTED) {
                gateChecks.countWouldRefuse(admission.places()); // the gate's COUNT_ONLY mode (issue 26)
            }
            return answer(couponId, memberId, admission);
        });
        boolean promise = switch (admission.outcome()) {
            case ADMITTED, DRAW_ENTERED, DRAW_ASKED_BEFORE -> true;
            case ALREADY_ASKED -> admission.result().isEmpty();
            default -> false;
        };
        return promise && minReplicas > 0
                ? replicated(couponId, ran.replicaKey(), ran.epoch()).then(answer)
                : answer;
    }

    /**
     * Completes once the admission reached {@code minReplicas} replicas: a 202 (or a 200 with a position) is a promise
     * that must outlive the primary. Short of replicas in time, a 503 that says nothing is promised yet; the admission
     * stays on the primary, and asking again answers 200 once it is replicated. The {@code WAIT} counts only when the
     * script connection was not re-established since the script was sent ({@code epoch}): a new server-side client
     * has written nothing, so its {@code WAIT} would confirm nothing of ours. Every promised answer's script writes (a
     * repeat too: admit.lua counts it), so the connection's {@code WAIT} covers the member's own admission, whichever
     * instance made it.
     */
    private Mono<Void> replicated(long couponId, String key, long epoch) {
        return redis.awaitReplicas(key, minReplicas, replicaTimeoutMs, epoch)
                .onErrorMap(error -> {
                    log.warn("the replica wait of coupon {} failed: {}", couponId, error.toString());
                    return ApiException.admissionOutcomeUnknown(couponId);
                })
                .flatMap(acknowledged -> {
                    if (acknowledged >= minReplicas) {
                        return Mono.empty();
                    }
                    notReplicated.increment();
                    return Mono.error(ApiException.admissionNotReplicated(couponId));
                });
    }

    private Mono<Answer> answer(long couponId, String memberId, Admission admission) {
        return switch (admission.outcome()) {
            case ADMITTED -> {
                IssueStatus status =
                        pace.waiting(couponId, memberId, admission.sequence(), admission.done(), admission.rate());
                pace.estimated(couponId, admission.sequence(), status.estimatedWaitMillis(), System.nanoTime());
                yield Mono.just(new Answer(true, status));
            }
            case ALREADY_ASKED ->
                Mono.just(new Answer(
                        false,
                        admission.result().isEmpty()
                                ? pace.waiting(
                                        couponId, memberId, admission.sequence(), admission.done(), admission.rate())
                                : StatusService.fromResult(couponId, memberId, admission.result())));
            case DRAW_ENTERED, DRAW_ASKED_BEFORE ->
                Mono.just(new Answer(
                        admission.outcome() == Admission.Outcome.DRAW_ENTERED,
                        IssueStatus.inDraw(
                                couponId,
                                memberId,
                                admission.sequence(),
                                admission.places(),
                                admission.drawing(),
                                Instant.ofEpochMilli(admission.done()),
                                clock.millis(),
                                pace.pace(couponId, admission.rate()))));
            case RATE_LIMITED -> Mono.error(limits.refused(admission.sequence(), admission.done()));
            case SOLD_OUT -> Mono.error(ApiException.soldOut(couponId));
            case NOT_ANNOUNCED -> Mono.error(ApiException.couponNotFound(couponId));
            case NOT_OPEN_YET -> Mono.error(ApiException.notOpenYet(couponId));
            case CLOSED -> Mono.error(ApiException.closed(couponId));
            case MIRROR_MISSING -> Mono.error(ApiException.unavailable("The coupon's admission state"));
            case GATE_REFUSED -> Mono.error(gateChecks.refusal(couponId, admission.sequence()));
            case SHARDED -> Mono.error(ApiException.unavailable("The coupon's admission state"));
        };
    }

    /** The status to answer with, and whether this call admitted the member (202) or found them admitted (200). */
    record Answer(boolean newlyAdmitted, IssueStatus status) {}
}
