package com.flashcoupon.api.gate;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.gatestate.GateCounts;
import com.flashcoupon.api.gatestate.GateRepository;
import com.flashcoupon.api.gatestate.GateSettings;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.time.Clock;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The operator's side of the gate (issue 26): its settings and list change only until the event opens (409
 * ALREADY_OPEN after), each change goes to MySQL, then to Redis through the mirror, like every other setting.
 */
@Service
public class GateAdmin {

    private static final Logger log = LoggerFactory.getLogger(GateAdmin.class);

    private final CouponRepository coupons;
    private final GateRepository gates;
    private final EligibleUpload upload;
    private final CouponMirror mirror;
    private final BlockingIo blocking;
    private final GateCounts counts;
    private final Clock clock;
    private final HumanCheckProperties properties;

    GateAdmin(
            CouponRepository coupons,
            GateRepository gates,
            EligibleUpload upload,
            CouponMirror mirror,
            BlockingIo blocking,
            GateCounts counts,
            Clock clock,
            HumanCheckProperties properties) {
        this.coupons = coupons;
        this.gates = gates;
        this.upload = upload;
        this.mirror = mirror;
        this.blocking = blocking;
        this.counts = counts;
        this.clock = clock;
        this.properties = properties;
    }

    /** At creation, in the creating transaction: nothing is stored for an event without a gate. */
    public void create(long couponId, GateRequest request) {
        if (request != null && !request.isEmpty()) {
            gates.save(
                    couponId,
                    request.settings(properties.defaultDifficultyBits(), properties.argon2DefaultDifficultyBits()));
        }
    }

    /** {@code PUT /admin/v1/coupons/{id}/eligibility}: new settings (the list stays). */
    Mono<EligibilityView> change(long couponId, GateRequest request) {
        return changeable(couponId)
                .flatMap(coupon -> blocking.run(() -> gates.save(
                        couponId,
                        request.settings(
                                properties.defaultDifficultyBits(), properties.argon2DefaultDifficultyBits()))))
                .then(remirror(couponId))
                .doOnSuccess(done -> log.info("coupon {}: gate set to {}", couponId, request))
                .then(view(couponId));
    }

    /** {@code PUT /admin/v1/coupons/{id}/eligible-members}: the list's size once Redis holds it. */
    Mono<Long> replaceList(long couponId, Flux<DataBuffer> body, long contentLength) {
        return changeable(couponId)
                .flatMap(coupon -> upload.replace(couponId, body, contentLength))
                .flatMap(count -> remirror(couponId).thenReturn(count));
    }

    /**
     * The rules, the list's size, and what the gate refused (or, in COUNT_ONLY mode, would have): Redis' counts while
     * it holds them, the ones saved in MySQL after the event retired or Redis lost it (the higher of the two).
     */
    Mono<EligibilityView> view(long couponId) {
        return find(couponId)
                .flatMap(coupon -> blocking.call(() -> gates.find(couponId)).flatMap(found -> {
                    var stored = found.orElse(new GateRepository.Stored(GateSettings.NONE, 0, 0));
                    Mono<GateCounts.Counts> saved = found.isEmpty()
                            ? Mono.just(GateCounts.Counts.NONE)
                            : blocking.call(() -> gates.savedCounts(couponId));
                    return blocking.call(() -> counts.live(couponId, coupon.stockShards()))
                            .zipWith(saved, GateCounts.Counts::max)
                            .map(counted -> EligibilityView.of(
                                    stored,
                                    Map.of(
                                            "list", counted.refusedList(),
                                            "claims", counted.refusedClaims(),
                                            "proof", counted.refusedProof()),
                                    Map.of("list", counted.wouldRefuseList(), "claims", counted.wouldRefuseClaims())));
                }));
    }

    private Mono<Void> remirror(long couponId) {
        return find(couponId).flatMap(mirror::mirror);
    }

    /** The coupon, unless retired (409 RETIRED) or open (409 ALREADY_OPEN). */
    private Mono<Coupon> changeable(long couponId) {
        return find(couponId).flatMap(coupon -> {
            if (coupon.retired()) {
                return Mono.error(ApiException.retired(couponId));
            }
            if (!clock.instant().isBefore(coupon.openAt())) {
                return Mono.error(ApiException.of(
                        ErrorCode.ALREADY_OPEN,
                        "Coupon " + couponId + " opened at " + coupon.openAt() + "; who it is for no longer changes."));
            }
            return Mono.just(coupon);
        });
    }

    private Mono<Coupon> find(long couponId) {
        return blocking.call(() -> coupons.findById(couponId))
                .flatMap(Mono::justOrEmpty)
                .switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)));
    }
}
