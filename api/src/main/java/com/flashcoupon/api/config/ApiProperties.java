package com.flashcoupon.api.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/** Every setting of the api, validated at start-up. */
@Validated
@ConfigurationProperties("coupon")
public record ApiProperties(
        @Valid @NotNull @DefaultValue Jwt jwt,
        @Valid @NotNull @DefaultValue Drain drain,
        @Valid @NotNull @DefaultValue Kafka kafka,
        @Valid @NotNull @DefaultValue RateLimit ratelimit,
        @Valid @NotNull @DefaultValue Retention retention,
        @Valid @NotNull @DefaultValue Metrics metrics) {

    /**
     * Token verification: a JWK set URI (production) or an HMAC-SHA256 secret of at least 32 bytes (local runs and
     * tests). Exactly one of them.
     */
    public record Jwt(
            String secret,
            String jwkSetUri,
            String issuer,
            String audience,
            @DefaultValue("30s") Duration clockSkew) {}

    /**
     * The drainer.
     *
     * @param tick how often each api instance looks for admitted requests to publish
     * @param maxBatch most records one coupon publishes per tick
     * @param leaseTtl how long one instance owns a coupon's drain without renewing
     */
    public record Drain(
            @DefaultValue("200ms") Duration tick,
            @DefaultValue("1000") @Min(1) @Max(100_000) int maxBatch,
            @DefaultValue("5s") Duration leaseTtl) {}

    /**
     * Limits on the member endpoints ({@code /api/**}), shared by every api instance through Redis. Each allows a burst
     * of two seconds' worth. 0 turns a limit off (load tests from one address need that).
     *
     * @param memberPerSecond requests per second one member may make
     * @param addressPerSecond requests per second one client address may make
     * @param trustedProxies addresses or CIDR ranges of proxies whose {@code X-Forwarded-For} is believed
     */
    public record RateLimit(
            @DefaultValue("5") @Min(0) int memberPerSecond,
            @DefaultValue("100") @Min(0) int addressPerSecond,
            @DefaultValue List<String> trustedProxies) {}

    /**
     * When an event's Redis state goes (docs/architecture.md, "An event's life").
     *
     * @param after how long a settled event keeps its Redis state before it is retired ({@code COUPON_EVENT_RETENTION})
     * @param checkEvery how often each instance looks for events that settled or are due to retire
     * @param markTtl how long a retired event's mark stays in Redis, keeping a restore that read MySQL just before the
     *     retirement (a matter of milliseconds) from writing the event back
     */
    public record Retention(
            @DefaultValue("24h") Duration after,
            @DefaultValue("2s") Duration checkEvery,
            @DefaultValue("1m") Duration markTtl) {}

    /**
     * Who may read {@code /actuator/prometheus}.
     *
     * @param requireRole a role the bearer token's {@code roles} claim must hold; empty (the default, as the HTTP
     *     contract says): no token needed
     */
    public record Metrics(@DefaultValue("") String requireRole) {}

    /**
     * The topics this app creates when they are missing: partitions, and replicas of each ({@code
     * COUPON_KAFKA_REPLICATION_FACTOR}, 3 on a cluster of brokers; {@code min.insync.replicas} is one less).
     */
    public record Kafka(
            @DefaultValue("3") @Min(1) int topicPartitions,
            @DefaultValue("1") @Min(1) @Max(32) int replicationFactor) {}
}
