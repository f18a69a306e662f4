package com.flashcoupon.api.admin;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import java.net.URI;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PatchMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** The operators' API (docs/http-api.md, Admin endpoints); the security chain requires the coupon-admin role here. */
@RestController
@RequestMapping("/admin/v1/coupons")
class AdminController {

    private final CouponAdminService service;

    AdminController(CouponAdminService service) {
        this.service = service;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "201", description = "Created; Location points at the coupon"),
        @ApiResponse(responseCode = "400", description = "INVALID_REQUEST: errors names each field")
    })
    @PostMapping(consumes = "application/json")
    Mono<ResponseEntity<AdminCouponView>> create(@Valid @RequestBody CreateCouponRequest request) {
        return service.create(request)
                .map(coupon -> ResponseEntity.created(URI.create("/admin/v1/coupons/" + coupon.id()))
                        .body(coupon));
    }

    @ApiResponses(@ApiResponse(responseCode = "200", description = "The most recent coupon events with live counters"))
    @GetMapping
    Flux<AdminCouponView> list() {
        return service.list();
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The coupon with live counters"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND")
    })
    @GetMapping("/{couponId}")
    Mono<AdminCouponView> get(@PathVariable @Positive long couponId) {
        return service.get(couponId);
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "Changed; takes effect within one drain tick"),
        @ApiResponse(responseCode = "400", description = "INVALID_REQUEST"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(
                responseCode = "409",
                description = "RETIRED: the event's life is over; ALREADY_OPEN: stockShards once open")
    })
    @PatchMapping(path = "/{couponId}", consumes = "application/json")
    Mono<AdminCouponView> patch(@PathVariable @Positive long couponId, @Valid @RequestBody PatchCouponRequest request) {
        return service.patch(couponId, request);
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "Closed: admission stopped; admitted requests are still issued"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(responseCode = "409", description = "RETIRED: the event's life is over")
    })
    @PostMapping("/{couponId}/close")
    Mono<AdminCouponView> close(@PathVariable @Positive long couponId) {
        return service.close(couponId);
    }
}
