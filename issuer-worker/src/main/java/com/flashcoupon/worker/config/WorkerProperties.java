package com.flashcoupon.worker.config;

import jakarta.validation.Valid;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Everything the worker can be tuned with, under {@code coupon.worker}. Each property also binds from the environment
 * by Spring's relaxed rules, e.g. {@code COUPON_WORKER_MAX_WRITES_PER_SECOND}.
 *
 * @param maxWritesPerSecond wallet writes per second that all worker instances together allow themselves (one Bucket4j
 *     bucket shared through Redis), whatever the number of instances
 * @param maxBatch records per poll ({@code max.poll.records}); one batch is one round of MySQL transactions
 * @param concurrency consumer threads of this instance (useful up to the number of partitions)
 * @param topicPartitions partitions of the topics the worker creates at start
 * @param topicReplicationFactor replicas of each partition of those topics ({@code COUPON_KAFKA_REPLICATION_FACTOR}, 3
 *     on a cluster); {@code min.insync.replicas} is one less
 * @param resultAckTimeout how long to wait for the broker to acknowledge a batch's result events
 * @param instanceId this instance's static membership in the consumer group ({@code group.instance.id}, each consumer
 *     thread gets a suffix {@code -0}, {@code -1}, ...): a worker restarted under the same id gets its partitions back
 *     at once instead of after {@code sessionTimeout}. Empty (the default): dynamic membership, always safe. Never give
 *     two running workers the same id: the broker fences the older one. bin/up sets host name and port.
 * @param sessionTimeout how long the group waits for a silent consumer ({@code session.timeout.ms}) before its
 *     partitions go to the others (dynamic members: also before a restarted worker gets them back). Kafka's default is
 *     45 s; at least the broker's {@code group.min.session.timeout.ms} (6 s by default)
 * @param retry back-off for records that can never be processed and for outages
 */
@Validated
@ConfigurationProperties("coupon.worker")
public record WorkerProperties(
        @DefaultValue("50000") @Min(1) @Max(10_000_000) int maxWritesPerSecond,
        @DefaultValue("1000") @Min(1) @Max(10_000) int maxBatch,
        @DefaultValue("1") @Min(1) @Max(64) int concurrency,
        @DefaultValue("3") @Min(1) @Max(1000) int topicPartitions,
        @DefaultValue("1") @Min(1) @Max(32) int topicReplicationFactor,
        @DefaultValue("30s") @NotNull Duration resultAckTimeout,
        @DefaultValue("") @NotNull String instanceId,
        @DefaultValue("10s") @NotNull Duration sessionTimeout,
        @DefaultValue @Valid @NotNull Retry retry) {

    /**
     * How long a Kafka listener waits before it polls again after an authentication or authorization failure. Without
     * it Spring Kafka stops the consumer for good at the first one, and a broker that has not yet loaded a SCRAM user,
     * or an ACL being replaced, answers that for a moment.
     */
    public static final Duration KAFKA_AUTH_RETRY = Duration.ofSeconds(10);

    /**
     * @param poisonAttempts retries of a record that can never be processed before it goes to the dead-letter topic
     * @param poisonInterval pause between those retries
     * @param transientInitialInterval first pause when MySQL, Redis or Kafka fails; the batch is retried until it works
     * @param transientMultiplier growth of that pause per failed attempt
     * @param transientMaxInterval cap of that pause (keep it well under {@code max.poll.interval.ms})
     */
    public record Retry(
            @DefaultValue("2") @Min(0) @Max(100) int poisonAttempts,
            @DefaultValue("500ms") @NotNull Duration poisonInterval,
            @DefaultValue("200ms") @NotNull Duration transientInitialInterval,
            @DefaultValue("2.0") @DecimalMin("1.0") double transientMultiplier,
            @DefaultValue("10s") @NotNull Duration transientMaxInterval) {}
}
