package com.flashcoupon.api.status;

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
class StatusController {

    private final StatusService statuses;

    StatusController(StatusService statuses) {
        this.statuses = statuses;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The status resource"),
        @ApiResponse(responseCode = "404", description = "REQUEST_NOT_FOUND")
    })
    @GetMapping("/api/v1/coupons/{couponId}/issue-requests/me")
    Mono<IssueStatus> me(
            @PathVariable @Positive long couponId, @AuthenticationPrincipal Jwt jwt, ServerHttpRequest request) {
        return statuses.status(couponId, jwt.getSubject(), request);
    }
}
