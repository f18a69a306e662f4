package com.flashcoupon.api.redemption;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.web.ApiException;
import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;
import java.net.URI;
import java.util.List;
import java.util.regex.Pattern;
import org.springframework.http.ResponseEntity;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/**
 * The order service's redemption API (docs/http-api.md, Internal endpoints), for tokens with the
 * {@code coupon-redeemer} role. Every write carries an {@code Idempotency-Key}, scoped to the caller's {@code sub}.
 */
@RestController
class RedemptionController {

    static final String KEY_HEADER = "Idempotency-Key";

    /** 1 to 255 visible ASCII characters: a UUID, a ULID, an order service's own request id. */
    private static final Pattern KEY = Pattern.compile("[\\x21-\\x7E]{1,255}");

    private final Redemptions redemptions;
    private final BlockingIo blocking;

    RedemptionController(Redemptions redemptions, BlockingIo blocking) {
        this.redemptions = redemptions;
        this.blocking = blocking;
    }

    @ApiResponses({
        @ApiResponse(responseCode = "201", description = "Reserved for the order"),
        @ApiResponse(responseCode = "200", description = "Already reserved or used by this same order"),
        @ApiResponse(responseCode = "404", description = "WALLET_COUPON_NOT_FOUND: not this member's wallet coupon"),
        @ApiResponse(
                responseCode = "409",
                description =
                        "ALREADY_USED, RESERVED_BY_ANOTHER_ORDER, EXPIRED, USED_BY_MEMBER or ORDER_AMOUNT_CHANGED"),
        @ApiResponse(
                responseCode = "422",
                description = "ORDER_BELOW_MINIMUM, or IDEMPOTENCY_KEY_REUSED with another request")
    })
    @PostMapping(path = "/internal/v1/redemptions", consumes = "application/json")
    Mono<ResponseEntity<Redemption>> reserve(
            @RequestHeader(KEY_HEADER) String key,
            @Valid @RequestBody ReserveRequest request,
            @AuthenticationPrincipal Jwt jwt) {
        return write(key, () -> redemptions.reserve(jwt.getSubject(), key, request));
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "USED; confirming again answers the same"),
        @ApiResponse(responseCode = "404", description = "REDEMPTION_NOT_FOUND: none, or another caller's"),
        @ApiResponse(responseCode = "409", description = "REDEMPTION_STATE_CONFLICT: released, timed out or cancelled")
    })
    @PostMapping("/internal/v1/redemptions/{redemptionId}/confirm")
    Mono<ResponseEntity<Redemption>> confirm(
            @RequestHeader(KEY_HEADER) String key,
            @PathVariable @Positive long redemptionId,
            @AuthenticationPrincipal Jwt jwt) {
        return write(key, () -> redemptions.confirm(jwt.getSubject(), key, redemptionId));
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "RELEASED (or TIMED_OUT before it): the coupon is back"),
        @ApiResponse(responseCode = "404", description = "REDEMPTION_NOT_FOUND: none, or another caller's"),
        @ApiResponse(responseCode = "409", description = "REDEMPTION_STATE_CONFLICT: confirmed or cancelled")
    })
    @PostMapping("/internal/v1/redemptions/{redemptionId}/release")
    Mono<ResponseEntity<Redemption>> release(
            @RequestHeader(KEY_HEADER) String key,
            @PathVariable @Positive long redemptionId,
            @AuthenticationPrincipal Jwt jwt) {
        return write(key, () -> redemptions.release(jwt.getSubject(), key, redemptionId));
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "CANCELLED; couponState says AVAILABLE or EXPIRED"),
        @ApiResponse(responseCode = "404", description = "REDEMPTION_NOT_FOUND: none, or another caller's"),
        @ApiResponse(responseCode = "409", description = "REDEMPTION_STATE_CONFLICT: not confirmed")
    })
    @PostMapping("/internal/v1/redemptions/{redemptionId}/cancel")
    Mono<ResponseEntity<Redemption>> cancel(
            @RequestHeader(KEY_HEADER) String key,
            @PathVariable @Positive long redemptionId,
            @AuthenticationPrincipal Jwt jwt) {
        return write(key, () -> redemptions.cancel(jwt.getSubject(), key, redemptionId));
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The redemption"),
        @ApiResponse(responseCode = "404", description = "REDEMPTION_NOT_FOUND: none, or another caller's")
    })
    @GetMapping("/internal/v1/redemptions/{redemptionId}")
    Mono<Redemption> get(@PathVariable @Positive long redemptionId, @AuthenticationPrincipal Jwt jwt) {
        return blocking.call(() -> redemptions.get(jwt.getSubject(), redemptionId));
    }

    @ApiResponses(
            @ApiResponse(
                    responseCode = "200",
                    description = "The order's redemptions this caller made, and the member's own uses, newest first"))
    @GetMapping("/internal/v1/redemptions")
    Mono<List<Redemption>> byOrder(
            @RequestParam @Size(min = 1, max = 64) String orderId, @AuthenticationPrincipal Jwt jwt) {
        return blocking.call(() -> redemptions.byOrder(jwt.getSubject(), orderId));
    }

    private Mono<ResponseEntity<Redemption>> write(
            String key, java.util.concurrent.Callable<Redemptions.Outcome> work) {
        if (!KEY.matcher(key).matches()) {
            return Mono.error(ApiException.invalid("Idempotency-Key must be 1 to 255 visible ASCII characters."));
        }
        return blocking.call(work).map(outcome -> {
            var answer = ResponseEntity.status(outcome.status());
            if (outcome.status() == 201) {
                answer.location(URI.create(
                        "/internal/v1/redemptions/" + outcome.redemption().redemptionId()));
            }
            return answer.body(outcome.redemption());
        });
    }
}
