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
        @Valid @NotNull @DefaultValue Metrics metrics,
        @Valid @NotNull @DefaultValue Overload overload,
        @Valid @NotNull @DefaultValue Redis redis,
        @Valid @NotNull @DefaultValue WarmUp warmup,
        @Valid @NotNull @DefaultValue Draw draw) {

    /**
     * Fair-start draws (docs/architecture.md, "Queueing modes"), made by each instance's draw job.
     *
     * @param checkEvery how often each instance looks for draws whose window is over
     */
    public record Draw(@DefaultValue("500ms") @NotNull Duration checkEvery) {}

    /**
     * The api's own warm-up before it reports ready (com.flashcoupon.api.warmup): a flash event opens on a cold JVM.
     *
     * @param requests member requests the api sends itself on a coupon of its own in Redis; 0 turns it off
     * @param concurrency how many of them at once
     * @param atMost the longest the warm-up may take; the api is ready after it whatever it reached
     */
    public record WarmUp(
            @DefaultValue("20000") @Min(0) int requests,
            @DefaultValue("64") @Min(1) @Max(1024) int concurrency,
            @DefaultValue("20s") @NotNull Duration atMost) {}

    /**
     * Redis beyond its address (Spring Boot's {@code spring.data.redis}).
     *
     * @param clusterNodes {@code host:port,...} of a Redis Cluster, or empty for the standalone Redis of
     *     {@code spring.data.redis.url} (see {@code com.flashcoupon.db.redis.RedisClusterSwitch})
     * @param minReplicas replicas an admission must reach before it is answered 202 (Redis {@code WAIT}, shared by every
     *     admission written before it on the connection); 0 answers once the primary has it
     * @param replicaTimeout how long one {@code WAIT} waits for them; short of replicas then, the admission is answered
     *     503 with an unknown outcome, never 202; at most half the command time-out ({@code spring.data.redis.timeout}),
     *     which would otherwise cut the {@code WAIT} before Redis answers it
     */
    public record Redis(
            @DefaultValue("") String clusterNodes,
            @DefaultValue("0") @Min(0) @Max(5) int minReplicas,
            @DefaultValue("500ms") @NotNull Duration replicaTimeout) {}

    /**
     * Token verification: a JWK set URI (production) or an HMAC-SHA256 secret of at least 32 bytes (local runs and
     * tests). Exactly one of them.
     *
     * @param jwkSetRefreshInterval the JWK set is fetched at most once per this interval, whatever the traffic (a token
     *     naming an unknown key asks for a fetch); a new signing key of the identity provider is picked up within it
     */
    public record Jwt(
            String secret,
            String jwkSetUri,
            String issuer,
            String audience,
            @DefaultValue("30s") Duration clockSkew,
            @DefaultValue("30s") @NotNull Duration jwkSetRefreshInterval) {}

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
            @DefaultValue("5s") Duration leaseTtl,
            @DefaultValue Adaptive adaptive) {}

    /**
     * The adaptive issue rate (docs/operations.md, "A rate that follows the database"): the drainer cuts a coupon's
     * effective rate by {@code cutFactor} when the worker's write latency for it or its in-flight backlog passes a
     * bound, at most once per {@code cutEvery}; after {@code recoverAfter} without a breach it raises the rate by
     * {@code stepFraction} of the operator's rate each {@code stepEvery}, never above it.
     *
     * @param enabled false: the drainer always uses the operator's rate
     * @param maxWriteLatency the worker's smoothed MySQL transaction time for the coupon above which the rate is cut
     * @param maxLag published requests without an outcome, in seconds of the effective rate, above which it is cut
     * @param minRate the lowest effective rate, per second
     */
    public record Adaptive(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("250ms") Duration maxWriteLatency,
            @DefaultValue("3s") Duration maxLag,
            @DefaultValue("0.5") double cutFactor,
            @DefaultValue("2s") Duration cutEvery,
            @DefaultValue("2s") Duration recoverAfter,
            @DefaultValue("0.1") double stepFraction,
            @DefaultValue("1s") Duration stepEvery,
            @DefaultValue("1") @Min(1) int minRate) {}

    /**
     * Limits on the member endpoints ({@code /api/**}), shared by every api instance through Redis. Each allows a burst
     * of two seconds' worth. 0 turns a limit off (load tests from one address need that).
     *
     * @param memberPerSecond requests per second one member may make
     * @param addressPerSecond requests per second one client address may make
     * @param trustedProxies addresses or CIDR ranges of proxies whose {@code X-Forwarded-For} is believed (literals
     *     only: a name is a start-up error, never looked up)
     * @param ipv6PrefixLength an IPv6 client is counted by its network of this many leading bits (64: one host's /64
     *     shares one allowance; 128: per address); IPv4 clients are counted per address
     */
    public record RateLimit(
            @DefaultValue("5") @Min(0) int memberPerSecond,
            @DefaultValue("100") @Min(0) int addressPerSecond,
            @DefaultValue List<String> trustedProxies,
            @DefaultValue("64") @Min(1) @Max(128) int ipv6PrefixLength) {}

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
     * Adaptive admission control in front of the member endpoints (docs/operations.md, Overload): how many member
     * requests one instance works on at once, adapted to their measured latency (Netflix's Gradient2 limit). A request
     * over the limit is answered at once with 503 {@code UNAVAILABLE} and {@code Retry-After}, having done nothing, so
     * that a crowd over capacity gets fast answers instead of a queue that grows until clients time out.
     *
     * @param enabled false lets every request through (the limit then neither measures nor refuses)
     * @param initialLimit the limit at start-up, before any latency was measured
     * @param minLimit the limit never falls below this, however slow requests get
     * @param maxLimit the limit never grows above this, however fast requests are
     * @param retryAfter the {@code Retry-After} of a refusal, rounded up to whole seconds
     */
    public record Overload(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("256") @Min(1) int initialLimit,
            @DefaultValue("256") @Min(1) int minLimit,
            @DefaultValue("2000") @Min(1) int maxLimit,
            @DefaultValue("1s") @NotNull Duration retryAfter) {

        public Overload {
            if (minLimit > initialLimit || initialLimit > maxLimit) {
                throw new IllegalArgumentException("coupon.overload needs min-limit <= initial-limit <= max-limit, was "
                        + minLimit + ", " + initialLimit + ", " + maxLimit);
            }
        }

        /** {@link #retryAfter} in whole seconds, at least 1: the header's unit. */
        public long retryAfterSeconds() {
            return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        }
    }

    /**
     * The topics this app creates when they are missing: partitions, and replicas of each ({@code
     * COUPON_KAFKA_REPLICATION_FACTOR}, 3 on a cluster of brokers; {@code min.insync.replicas} is one less).
     */
    public record Kafka(
            @DefaultValue("3") @Min(1) int topicPartitions,
            @DefaultValue("1") @Min(1) @Max(32) int replicationFactor) {}
}
