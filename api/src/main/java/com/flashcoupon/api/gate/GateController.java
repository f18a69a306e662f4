package com.flashcoupon.api.gate;

import com.flashcoupon.api.web.Problems;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import java.util.Map;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The gate's endpoints (issue 26; docs/http-api.md): the operator's list and settings, the member's challenge. */
@RestController
class GateController {

    private final GateAdmin admin;
    private final Challenges challenges;

    GateController(GateAdmin admin, Challenges challenges) {
        this.admin = admin;
        this.challenges = challenges;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The list is replaced: {\"count\": N}"),
        @ApiResponse(
                responseCode = "400",
                description = "INVALID_REQUEST: errors names bad lines, or cap names the line cap passed; nothing"
                        + " replaced"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(responseCode = "409", description = "ALREADY_OPEN or RETIRED"),
        @ApiResponse(
                responseCode = "413",
                description = "PAYLOAD_TOO_LARGE: cap names the byte or temporary disk cap passed; nothing replaced")
    })
    @PutMapping(path = "/admin/v1/coupons/{couponId}/eligible-members", consumes = "text/plain")
    Mono<ResponseEntity<Object>> replaceList(@PathVariable @Positive long couponId, ServerHttpRequest request) {
        return admin.replaceList(
                        couponId, request.getBody(), request.getHeaders().getContentLength())
                .map(count -> ResponseEntity.ok().<Object>body(Map.of("count", count)))
                .onErrorResume(
                        EligibleUpload.BadLines.class,
                        bad -> Mono.just(ResponseEntity.badRequest()
                                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                                .body(Problems.invalid(
                                        bad.bad + " lines are not member ids; nothing was replaced"
                                                + (bad.bad > bad.errors.size()
                                                        ? " (the first " + bad.errors.size() + " are named)."
                                                        : "."),
                                        bad.errors))));
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The event's gate, its list's size and its refusals"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND")
    })
    @GetMapping("/admin/v1/coupons/{couponId}/eligibility")
    Mono<EligibilityView> eligibility(@PathVariable @Positive long couponId) {
        return admin.view(couponId);
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "Changed (the list stays)"),
        @ApiResponse(responseCode = "400", description = "INVALID_REQUEST"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(responseCode = "409", description = "ALREADY_OPEN or RETIRED")
    })
    @PutMapping(path = "/admin/v1/coupons/{couponId}/eligibility", consumes = "application/json")
    Mono<EligibilityView> change(@PathVariable @Positive long couponId, @Valid @RequestBody GateRequest request) {
        return admin.change(couponId, request);
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "A proof-of-work challenge for this member and event"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND")
    })
    @GetMapping("/api/v1/coupons/{couponId}/challenge")
    Mono<ProofOfWork.Challenge> challenge(@PathVariable @Positive long couponId, @AuthenticationPrincipal Jwt jwt) {
        return challenges.challenge(couponId, jwt);
    }
}
