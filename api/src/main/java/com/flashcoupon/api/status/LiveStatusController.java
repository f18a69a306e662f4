package com.flashcoupon.api.status;

import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.Problems;
import io.swagger.v3.oas.annotations.Parameter;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import java.util.List;
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
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ServerWebInputException;
import reactor.core.publisher.Flux;

/**
 * {@code GET .../issue-requests/me/events}: the status resource as server-sent events (docs/http-api.md), and {@code GET
 * /api/v1/me/events?coupons=...}: the same for several coupons on one stream. Problems raised before
 * the first event are answered here with an explicit {@code application/problem+json}, since the client asked for
 * {@code text/event-stream} and content negotiation would otherwise write the problem as an event.
 */
@RestController
class LiveStatusController {

    private final LiveStatusHub hub;
    private final LiveProperties properties;

    LiveStatusController(LiveStatusHub hub, LiveProperties properties) {
        this.hub = hub;
        this.properties = properties;
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
            @PathVariable long couponId,
            @Parameter(description = "The id of the last status event received: its states are not sent again")
                    @RequestHeader(name = LAST_EVENT_ID, required = false)
                    String lastEventId,
            @AuthenticationPrincipal Jwt jwt,
            ServerHttpRequest request) {
        if (couponId <= 0) {
            return Flux.error(ApiException.invalid("couponId must be a positive number."));
        }
        return hub.open(couponId, jwt.getSubject(), request, lastEventId);
    }

    @ApiResponses({
        @ApiResponse(
                responseCode = "200",
                description = "Server-sent events named status carrying the status resource of each coupon named, until"
                        + " each is ISSUED or FAILED; a coupon's stream may instead end with an event named replaced or"
                        + " reconnect carrying its couponId"),
        @ApiResponse(responseCode = "400", description = "INVALID_REQUEST: coupons missing, malformed or too many"),
        @ApiResponse(responseCode = "404", description = "REQUEST_NOT_FOUND: the member never asked for one of them"),
        @ApiResponse(responseCode = "503", description = "UNAVAILABLE: this instance holds as many streams as it may")
    })
    @GetMapping(path = "/api/v1/me/events", produces = MediaType.TEXT_EVENT_STREAM_VALUE)
    Flux<ServerSentEvent<Object>> manyEvents(
            @Parameter(description = "The coupons to follow: their ids, comma-separated (at most 10 by default)")
                    @RequestParam(name = "coupons", required = false)
                    String coupons,
            @Parameter(description = "The id of the last status event received: its states are not sent again")
                    @RequestHeader(name = LAST_EVENT_ID, required = false)
                    String lastEventId,
            @AuthenticationPrincipal Jwt jwt,
            ServerHttpRequest request) {
        List<Long> couponIds;
        try {
            couponIds = CouponList.parse(coupons, properties.maxCouponsPerStream());
        } catch (IllegalArgumentException e) {
            return Flux.error(ApiException.invalid(e.getMessage()));
        }
        return hub.open(couponIds, jwt.getSubject(), request, lastEventId);
    }

    /** The SSE header a reconnecting client sends with the id of the last event it received. */
    static final String LAST_EVENT_ID = "Last-Event-ID";

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
        return problem(Problems.of(ErrorCode.INVALID_REQUEST, "Coupon ids must be positive numbers."));
    }

    private static ResponseEntity<ProblemDetail> problem(ProblemDetail problem) {
        return ResponseEntity.status(problem.getStatus())
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .body(problem);
    }
}
