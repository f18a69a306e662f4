package com.flashcoupon.api.redemption;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Redemption by the order service (docs/operations.md, settings).
 *
 * @param reservationTtl how long a reservation holds a coupon unless confirmed ({@code COUPON_RESERVATION_TTL})
 * @param checkEvery how often each instance gives back lapsed reservations and records expired coupons
 * @param relayEvery how often each instance publishes recorded changes on {@code coupon.wallet.changed}
 * @param idempotencyRetention how long the answer to an {@code Idempotency-Key} is kept
 * @param callerPerSecond calls of the redemption API one caller (a token's {@code sub}) may make per second, with a
 *     burst of two seconds' worth, across every instance ({@code COUPON_REDEMPTION_CALLER_PER_SECOND}; 0: off)
 */
@Validated
@ConfigurationProperties("coupon.redemption")
record RedemptionProperties(
        @DefaultValue("15m") @NotNull Duration reservationTtl,
        @DefaultValue("1s") @NotNull Duration checkEvery,
        @DefaultValue("250ms") @NotNull Duration relayEvery,
        @DefaultValue("24h") @NotNull Duration idempotencyRetention,
        @DefaultValue("200") @Min(0) int callerPerSecond) {}
