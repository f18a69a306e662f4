package com.flashcoupon.api.overload;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The overload guard's figures for the operator console; the security chain requires the coupon-admin role here. Per
 * instance: behind a load balancer, each answer is the instance that served it (the metrics have every instance).
 */
@RestController
class OverloadController {

    private final OverloadGuard guard;

    OverloadController(OverloadGuard guard) {
        this.guard = guard;
    }

    @ApiResponse(responseCode = "200", description = "The limit, the requests in work, and the counts since start-up")
    @GetMapping("/admin/v1/overload")
    Mono<OverloadView> overload() {
        return Mono.fromSupplier(guard::view);
    }
}
