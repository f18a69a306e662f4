package com.flashcoupon.api.redemption;

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
 */
@Validated
@ConfigurationProperties("coupon.redemption")
record RedemptionProperties(
        @DefaultValue("15m") @NotNull Duration reservationTtl,
        @DefaultValue("1s") @NotNull Duration checkEvery,
        @DefaultValue("250ms") @NotNull Duration relayEvery,
        @DefaultValue("24h") @NotNull Duration idempotencyRetention) {}
