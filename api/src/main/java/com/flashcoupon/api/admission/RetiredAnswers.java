package com.flashcoupon.api.admission;

import com.flashcoupon.api.gate.GateChecks;
import com.flashcoupon.api.gate.RetiredGate;
import com.flashcoupon.api.status.StatusService;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.db.Coupon;
import io.micrometer.core.instrument.Counter;
import java.time.Clock;
import java.util.Map;
import reactor.core.publisher.Mono;

/** The admissions of a retired event, answered from MySQL alone, exactly as Redis answered before it was retired. */
final class RetiredAnswers {

    private final Clock clock;
    private final StatusService statuses;
    private final RetiredGate gate;
    private final GateChecks gateChecks;
    private final Map<Admission.Outcome, Counter> outcomes;

    RetiredAnswers(
            Clock clock,
            StatusService statuses,
            RetiredGate gate,
            GateChecks gateChecks,
            Map<Admission.Outcome, Counter> outcomes) {
        this.clock = clock;
        this.statuses = statuses;
        this.gate = gate;
        this.gateChecks = gateChecks;
        this.outcomes = outcomes;
    }

    /**
     * What admit.lua answered before the event was retired, decided the same way from MySQL: the gate's refusal of a
     * member without a recorded outcome (issue 26), not open yet (an event closed before it opened), closed, then the
     * member's own recorded outcome (200), then sold out.
     */
    Mono<AdmissionService.Answer> answer(Coupon coupon, String memberId, GateChecks.Presented presented) {
        long couponId = coupon.id();
        return gate.refusal(couponId, memberId, presented.claims())
                .flatMap(reason -> reason == 0
                        ? answer(coupon, memberId)
                        : statuses.recorded(couponId, memberId).hasElement().flatMap(placed -> {
                            if (placed) {
                                return answer(coupon, memberId);
                            }
                            outcomes.get(Admission.Outcome.GATE_REFUSED).increment();
                            return Mono.error(gateChecks.refusal(couponId, reason));
                        }));
    }

    private Mono<AdmissionService.Answer> answer(Coupon coupon, String memberId) {
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
                    return new AdmissionService.Answer(false, status);
                })
                .switchIfEmpty(Mono.defer(() -> {
                    outcomes.get(Admission.Outcome.SOLD_OUT).increment();
                    return Mono.error(ApiException.soldOut(couponId));
                }));
    }
}
