package com.flashcoupon.api.draw;

import io.swagger.v3.oas.annotations.responses.ApiResponse;
import io.swagger.v3.oas.annotations.responses.ApiResponses;
import java.time.Duration;
import java.util.List;
import org.springframework.http.CacheControl;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /.well-known/flash-coupon-keys}: the service keys entry receipts are signed with, the current one first,
 * and the exact text a receipt's signature is over. No token; charged to the address's allowance.
 */
@RestController
class ServiceKeysController {

    static final String RECEIPT_MESSAGE = "flash-coupon entry receipt v1\\n{couponId}\\n{pseudonym}\\n{enteredBy}\\n";

    private final DrawKeys keys;

    ServiceKeysController(DrawKeys keys) {
        this.keys = keys;
    }

    /** The published keys and the receipt's message, as a template (each {@code \n} a line feed). */
    record ServiceKeys(List<DrawKeys.PublicKey> keys, String receiptMessage) {}

    @ApiResponses({
        @ApiResponse(responseCode = "200", description = "The service keys, current first, and the receipt's message"),
        @ApiResponse(responseCode = "429", description = "RATE_LIMITED: the address's allowance is used up")
    })
    @GetMapping("/.well-known/flash-coupon-keys")
    ResponseEntity<ServiceKeys> keys() {
        return ResponseEntity.ok()
                .cacheControl(CacheControl.maxAge(Duration.ofMinutes(5)).cachePublic())
                .body(new ServiceKeys(keys.publicKeys(), RECEIPT_MESSAGE));
    }
}
