package com.flashcoupon.api.coupon;

import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redemption.Benefits;
import com.flashcoupon.api.web.ApiException;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class CouponController {

    private final CouponStates states;
    private final RateLimits limits;
    private final Benefits benefits;
    private final CouponDraws draws;

    CouponController(CouponStates states, RateLimits limits, Benefits benefits, CouponDraws draws) {
        this.states = states;
        this.limits = limits;
        this.benefits = benefits;
        this.draws = draws;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The coupon event"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND")
    })
    @GetMapping("/api/v1/coupons/{couponId}")
    Mono<CouponView> get(
            @PathVariable @Positive long couponId, @AuthenticationPrincipal Jwt jwt, ServerHttpRequest request) {
        String member = jwt.getSubject();
        return limits.charge(limits.forCoupon(couponId, member, request))
                .then(Mono.defer(() -> states.loadForMember(couponId, limits.chargeOverall(member, request))))
                // before its announcement, an event is answered as one that does not exist
                .filter(CouponState::announced)
                .switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)))
                // after the state: a coupon that is not found never has its (absent) benefit remembered
                .flatMap(state -> benefits.find(couponId)
                        .zipWith(draws.forMember(couponId, state)
                                .map(java.util.Optional::of)
                                .defaultIfEmpty(java.util.Optional.empty()))
                        .map(found -> CouponView.of(
                                state, found.getT1().orElse(null), found.getT2().orElse(null))));
    }
}
