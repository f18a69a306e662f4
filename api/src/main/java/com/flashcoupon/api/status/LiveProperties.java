package com.flashcoupon.api.status;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Live status streams (SSE), under {@code coupon.live}; kept beside the feature rather than in {@code ApiProperties}.
 *
 * @param tick how often each coupon with open streams reads its progress from Redis and moves positions (also the
 *     least time between two position events of one stream)
 * @param heartbeat how often every stream gets a comment line that keeps proxies from closing it
 * @param groupPrefix consumer group prefix of the result listener; each instance adds a random suffix, so every
 *     instance sees every result
 * @param maxBuffered events a slow client may have waiting before position and heartbeat events are dropped for it
 *     (one place is always kept for the final event)
 * @param maxStreams streams one instance holds at once; over it, a new stream is answered 503 with {@code Retry-After}
 * @param maxPerMember streams one member may hold for one coupon on one instance; a newer one ends the oldest with a
 *     final {@code replaced} event
 * @param maxLifetime how long a stream may stay open; it then ends with a final {@code reconnect} event (each stream
 *     at a random moment in the last tenth of it, so a crowd that opened together does not reconnect together)
 * @param maxCouponsPerStream coupons one stream of {@code GET /api/v1/me/events} may follow
 * @param pollMin the least interval a status read suggests before the next one ({@code X-Coupon-Poll-After})
 * @param pollMax the longest interval a status read suggests
 */
@Validated
@ConfigurationProperties("coupon.live")
public record LiveProperties(
        @DefaultValue("1s") @NotNull Duration tick,
        @DefaultValue("15s") @NotNull Duration heartbeat,
        @DefaultValue("coupon-api-live-") @NotNull String groupPrefix,
        @DefaultValue("32") @Min(4) @Max(1024) int maxBuffered,
        @DefaultValue("20000") @Min(1) int maxStreams,
        @DefaultValue("2") @Min(1) int maxPerMember,
        @DefaultValue("10m") @NotNull Duration maxLifetime,
        @DefaultValue("10") @Min(1) @Max(100) int maxCouponsPerStream,
        @DefaultValue("2s") @NotNull Duration pollMin,
        @DefaultValue("30s") @NotNull Duration pollMax) {}
