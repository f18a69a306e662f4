package com.flashcoupon.api.status;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.Problems;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Flux;

/**
 * {@code GET .../issue-requests/me/events}: the status resource as server-sent events (docs/http-api.md). Problems raised before
 * the first event are answered here with an explicit {@code application/problem+json}, since the client asked for
 * {@code text/event-stream} and content negotiation would otherwise write the problem as an event.
 */
@RestController
class LiveStatusController {

    private final LiveStatusHub hub;

    LiveStatusController(LiveStatusHub hub) {
        this.hub = hub;
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "Server-sent events named status carrying the status resource, until ISSUED or FAILED;"
                        + " a stream may instead end with an event named replaced or reconnect"),
        @ApiResponse(responseCode = "404", description = "REQUEST_NOT_FOUND"),
        @ApiResponse(responseCode = "503", description = "UNAVAILABLE: this instance holds as many streams as it may")
    })
    @GetMapping(
            path = "/api/v1/coupons/{couponId}/issue-requests/me/events",
            produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    Flux<ServerSentEvent<Object>> events(
            @PathVariable long couponId, @AuthenticationPrincipal Jwt jwt, ServerHttpRequest request) {
        if (couponId <= 0) {
            return Flux.error(ApiException.invalid("couponId must be a positive number."));
        }
        return hub.open(couponId, jwt.getSubject(), request);
    }

    @ExceptionHandler(ApiException.class)
    ResponseEntity<ProblemDetail> problem(ApiException e) {
        ResponseEntity<ProblemDetail> answer = problem(Problems.of(e.code(), e.getMessage()));
        if (e.retryAfterSeconds() <= 0) {
            return answer;
        }
        return ResponseEntity.status(answer.getStatusCode())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .header(HttpHeaders.RETRY_AFTER, Long.toString(e.retryAfterSeconds()))
                .body(answer.getBody());
    }

    @ExceptionHandler(ServerWebInputException.class)
    ResponseEntity<ProblemDetail> badInput(ServerWebInputException e) {
        return problem(Problems.of(ErrorCode.INVALID_REQUEST, "couponId must be a positive number."));
    }

    private static ResponseEntity<ProblemDetail> problem(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
