package com.flashcoupon.api.coupon;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class CouponController {

    private final CouponStates states;

    CouponController(CouponStates states) {
        this.states = states;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The coupon event"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND")
    })
    @GetMapping("/api/v1/coupons/{couponId}")
    Mono<CouponView> get(@PathVariable @Positive long couponId) {
        return states.load(couponId).map(CouponView::of);
    }
}
