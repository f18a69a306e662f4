package com.flashcoupon.api.admission;

import com.flashcoupon.api.status.IssueStatus;
import io.swagger.v3.oas.annotations.media.Content;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.constraints.Positive;
import java.net.URI;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

@RestController
class AdmissionController {

    private final AdmissionService admissions;

    AdmissionController(AdmissionService admissions) {
        this.admissions = admissions;
    }

    /** 202 when newly admitted, 200 when the member asked before; problems otherwise (docs/http-api.md). */
    @ApiResponses({
        @ApiResponse(
                responseCode = "202",
                description = "Newly admitted; Location points at the status resource",
                content = @Content(schema = @Schema(implementation = IssueStatus.class))),
        @ApiResponse(
                responseCode = "200",
                description = "Asked before: the same position as the first time",
                content = @Content(schema = @Schema(implementation = IssueStatus.class))),
        @ApiResponse(
                responseCode = "403",
                description = "NOT_ELIGIBLE (the event is not for this member) or PROOF_INVALID (its human check)"),
        @ApiResponse(responseCode = "428", description = "PROOF_REQUIRED: the event asks for X-Coupon-Proof"),
        @ApiResponse(responseCode = "404", description = "COUPON_NOT_FOUND"),
        @ApiResponse(
                responseCode = "409",
                description = "SOLD_OUT, or NOT_OPEN (before openAt, after closeAt, closed by an operator)")
    })
    @PostMapping("/api/v1/coupons/{couponId}/issue-requests")
    Mono<ResponseEntity<Object>> request(
            @PathVariable @Positive long couponId, @AuthenticationPrincipal Jwt jwt, ServerHttpRequest request) {
        return admissions
                .admit(couponId, jwt.getSubject(), jwt.getClaims(), request)
                .map(answer -> ResponseEntity.status(answer.newlyAdmitted() ? HttpStatus.ACCEPTED : HttpStatus.OK)
                        .location(URI.create("/api/v1/coupons/" + couponId + "/issue-requests/me"))
                        .body(answer.status()));
    }
}
