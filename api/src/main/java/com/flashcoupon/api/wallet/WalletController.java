package com.flashcoupon.api.wallet;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Positive;
import java.util.List;
import org.springframework.security.core.annotation.AuthenticationPrincipal;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

/** The caller's wallet (docs/http-api.md, {@code /api/v1/me/coupons}). */
@RestController
class WalletController {

    private final WalletService wallet;

    WalletController(WalletService wallet) {
        this.wallet = wallet;
    }

    @ApiResponses(@ApiResponse(responseCode = "200", description = "The caller's wallet, newest first"))
    @GetMapping("/api/v1/me/coupons")
    Mono<List<WalletEntry>> list(@AuthenticationPrincipal Jwt jwt) {
        return wallet.list(jwt.getSubject());
    }

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "Used; the same orderId again is 200 too (idempotent)"),
        @ApiResponse(
                responseCode = "404",
                description = "WALLET_COUPON_NOT_FOUND: no such coupon in the caller's wallet"),
        @ApiResponse(responseCode = "409", description = "ALREADY_USED with another orderId, or EXPIRED")
    })
    @PostMapping(path = "/api/v1/me/coupons/{walletCouponId}/use", consumes = "application/json")
    Mono<WalletEntry> use(
            @PathVariable @Positive long walletCouponId,
            @Valid @RequestBody UseRequest request,
            @AuthenticationPrincipal Jwt jwt) {
        return wallet.use(walletCouponId, jwt.getSubject(), request.orderId());
    }
}
