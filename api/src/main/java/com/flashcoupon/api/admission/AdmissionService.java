package com.flashcoupon.api.admission;

import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.coupon.RetiredCoupons;
import com.flashcoupon.api.health.BackendWatch;
import com.flashcoupon.api.status.IssueStatus;
import com.flashcoupon.api.status.StatusService;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.BackendFailures;
import com.flashcoupon.db.Coupon;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * First-come admission: one Lua script decides (window, duplicate, stock cap, sequence, ZADD NX). Redis unreachable
 * fails the request (503), never admits it; an answer lost after the script was sent is a 503 that says the outcome is
 * unknown (the retry tells); a coupon missing from Redis is restored from MySQL before Redis decides. A retired event
 * is answered from MySQL alone, exactly as Redis answered before it was retired.
 */
@Service
class AdmissionService {

    private static final Logger log = LoggerFactory.getLogger(AdmissionService.class);

    private final ReactiveStringRedisTemplate redis;

    /** Taken when the bean is created, so the script file is read at start-up and never on an event loop. */
    @SuppressWarnings("rawtypes")
    private final RedisScript<List> script = AdmitScript.SCRIPT;

    private final CouponMirror mirror;
    private final StatusService statuses;
    private final AdmissionGate gate;
    private final BackendWatch backends;
    private final RetiredCoupons retired;
    private final Clock clock;
    private final Map<Admission.Outcome, Counter> outcomes = new EnumMap<>(Admission.Outcome.class);
    private final Counter localRefusals;
    private final Timer latency;

    AdmissionService(
            ReactiveStringRedisTemplate redis,
            CouponMirror mirror,
            StatusService statuses,
            AdmissionGate gate,
            BackendWatch backends,
            RetiredCoupons retired,
            Clock clock,
            MeterRegistry meters) {
        this.backends = backends;
        this.retired = retired;
        this.clock = clock;
        this.redis = redis;
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
        this.latency = Timer.builder("coupon.admission.latency")
                .description("Time to decide one admission, whatever the outcome (Redis script, restore, status)")
                .publishPercentileHistogram()
                .register(meters);
    }

    /** Admits the member, or fails with the contract's problem; {@code newlyAdmitted} tells 202 from 200. */
    Mono<Answer> admit(long couponId, String memberId) {
        return Mono.defer(() -> {
            Timer.Sample started = Timer.start();
            return decide(couponId, memberId).doFinally(signal -> started.stop(latency));
        });
    }

    private Mono<Answer> decide(long couponId, String memberId) {
        String down = backends.down();
        if (down != null) {
            return Mono.error(ApiException.unavailable(down));
        }
        var gone = retired.find(couponId);
        if (gone.isPresent()) {
            return answerRetired(gone.get(), memberId);
        }
        var refusal = gate.localRefusal(couponId, memberId);
        if (refusal.isPresent()) {
            outcomes.get(refusal.get()).increment();
            localRefusals.increment();
            return answer(couponId, memberId, new Admission(refusal.get(), 0, 0, 0));
        }
        return runScript(couponId, memberId)
                .flatMap(admission -> admission.outcome() != Admission.Outcome.MIRROR_MISSING
                        ? decided(couponId, memberId, admission)
                        : mirror.restoreOrNotFound(couponId)
                                .flatMap(coupon -> coupon.retired()
                                        ? answerRetired(coupon, memberId)
                                        : runScript(couponId, memberId)
                                                .flatMap(again -> decided(couponId, memberId, again))));
    }

    private Mono<Answer> decided(long couponId, String memberId, Admission admission) {
        outcomes.get(admission.outcome()).increment();
        gate.learn(couponId, admission);
        return answer(couponId, memberId, admission);
    }

    /**
     * What admit.lua answered before the event was retired, decided the same way from MySQL: not open yet (an event
     * closed before it opened), closed, then the member's own recorded outcome (200), then sold out.
     */
    private Mono<Answer> answerRetired(Coupon coupon, String memberId) {
        long couponId = coupon.id();
        if (clock.instant().isBefore(coupon.openAt())) {
            outcomes.get(Admission.Outcome.NOT_OPEN_YET).increment();
            return Mono.error(ApiException.notOpenYet(couponId)); // closed before it opened
        }
        boolean closed = coupon.closedByOperator()
                || (coupon.closeAt() != null && !clock.instant().isBefore(coupon.closeAt()));
        if (closed) {
            outcomes.get(Admission.Outcome.CLOSED).increment();
            return Mono.error(ApiException.closed(couponId));
        }
        return statuses.recorded(couponId, memberId)
                .map(status -> {
                    outcomes.get(Admission.Outcome.ALREADY_ASKED).increment();
                    return new Answer(false, status);
                })
                .switchIfEmpty(Mono.defer(() -> {
                    outcomes.get(Admission.Outcome.SOLD_OUT).increment();
                    return Mono.error(ApiException.soldOut(couponId));
                }));
    }

    private Mono<Answer> answer(long couponId, String memberId, Admission admission) {
        return switch (admission.outcome()) {
            case ADMITTED ->
                Mono.just(new Answer(
                        true,
                        IssueStatus.waiting(
                                couponId, memberId, admission.sequence(), admission.done(), admission.rate())));
            case ALREADY_ASKED -> statuses.status(couponId, memberId).map(status -> new Answer(false, status));
            case SOLD_OUT -> Mono.error(ApiException.soldOut(couponId));
            case NOT_OPEN_YET -> Mono.error(ApiException.notOpenYet(couponId));
            case CLOSED -> Mono.error(ApiException.closed(couponId));
            case MIRROR_MISSING -> Mono.error(ApiException.unavailable("The coupon's admission state"));
        };
    }

    private Mono<Admission> runScript(long couponId, String memberId) {
        return redis.execute(script, AdmitScript.keys(couponId), List.of(memberId))
                .next()
                .map(AdmitScript::read)
                // the script may have run before its answer was lost: never claim that nothing was accepted
                .onErrorMap(BackendFailures::isBackendDown, error -> {
                    log.warn("admission of coupon {} failed with an unknown outcome: {}", couponId, error.toString());
                    return ApiException.admissionOutcomeUnknown(couponId);
                });
    }

    /** The status to answer with, and whether this call admitted the member (202) or found them admitted (200). */
    record Answer(boolean newlyAdmitted, IssueStatus status) {}
}
