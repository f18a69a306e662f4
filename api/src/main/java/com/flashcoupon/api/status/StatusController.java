package com.flashcoupon.api.status;

import io.swagger.v3.oas.annotations.headers.Header;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import org.springframework.http.ResponseEntity;
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
    private final PollInterval poll;

    StatusController(StatusService statuses, LiveProperties properties) {
        this.statuses = statuses;
        this.poll = new PollInterval(properties.pollMin(), properties.pollMax());
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "The status resource",
                headers =
                        @Header(
                                name = PollInterval.HEADER,
                                description = "While WAITING: the seconds to wait before reading the status again,"
                                        + " for a client that cannot hold the live stream")),
        @ApiResponse(responseCode = "404", description = "REQUEST_NOT_FOUND")
    })
    @GetMapping("/api/v1/coupons/{couponId}/issue-requests/me")
    Mono<ResponseEntity<IssueStatus>> me(
            @PathVariable @Positive long couponId, @AuthenticationPrincipal Jwt jwt, ServerHttpRequest request) {
        return statuses.status(couponId, jwt.getSubject(), request).map(status -> {
            long after = poll.seconds(status, System.currentTimeMillis());
            ResponseEntity.BodyBuilder ok = ResponseEntity.ok();
            if (after > 0) {
                ok.header(PollInterval.HEADER, Long.toString(after));
            }
            return ok.body(status);
        });
    }
}
