package com.flashcoupon.worker.issue;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.TimeMeter;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.springframework.util.function.SingletonSupplier;

/**
 * The wallet write-rate limit: a Bucket4j bucket of {@code perSecond} tokens refilled greedily, one token per record.
 * {@link #acquire} blocks until the tokens are there, so MySQL sees a steady rate however fast the records arrive.
 * Requests larger than the bucket are taken in bucket-sized parts.
 *
 * <p>In the worker the bucket is {@link #shared} by every instance through Redis (Bucket4j's Lettuce proxy, one key):
 * the limit protects the one order database, so two workers catching up after an outage write at the limit together,
 * not at twice it. One compare-and-set round trip per batch part; no key per coupon, so it works on a Redis Cluster.
 */
final class WriteThrottle {

    /**
     * The Redis key of the shared bucket for a rate. The rate is in the name: Bucket4j keeps the configuration a bucket
     * was created with, so a changed limit gets a bucket of its own (during a rolling change, old and new instances
     * each keep to theirs), and the old key expires once idle.
     */
    static String sharedKey(int perSecond) {
        return "coupon:worker:write-rate:" + perSecond;
    }

    private final Supplier<Bucket> bucket;
    private final long capacity;
    private final BlockingStrategy blocking;

    /** A bucket of this instance only, on the given clock: for tests of the rate itself. */
    WriteThrottle(int perSecond, TimeMeter clock, BlockingStrategy blocking) {
        this(
                perSecond,
                SingletonSupplier.of(() -> Bucket.builder()
                        .addLimit(limit -> limit.capacity(perSecond).refillGreedy(perSecond, Duration.ofSeconds(1)))
                        .withCustomTimePrecision(clock)
                        .build()),
                blocking);
    }

    private WriteThrottle(int perSecond, Supplier<Bucket> bucket, BlockingStrategy blocking) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond must be at least 1, was " + perSecond);
        }
        this.capacity = perSecond;
        this.bucket = bucket;
        this.blocking = blocking;
    }

    /**
     * The bucket every worker shares, kept in Redis under {@link #sharedKey}. Connected on first use (a Redis outage
     * at start-up then fails a batch, which is retried, instead of the start), on a connection of its own, and again
     * whenever Spring's Redis client is a new one (the connection factory was stopped and started: the old client's
     * connection is closed for good; Lettuce itself reconnects a dropped connection).
     */
    static WriteThrottle shared(Supplier<AbstractRedisClient> redis, int perSecond) {
        AtomicReference<Shared> current = new AtomicReference<>();
        return new WriteThrottle(
                perSecond,
                () -> {
                    synchronized (current) {
                        AbstractRedisClient client = redis.get();
                        Shared shared = current.get();
                        if (shared == null || shared.client() != client) {
                            // first use, or Spring replaced the client (its connection factory stopped and started)
                            shared = new Shared(client, connect(client, perSecond));
                            current.set(shared);
                        }
                        return shared.bucket();
                    }
                },
                BlockingStrategy.PARKING);
    }

    private record Shared(AbstractRedisClient client, Bucket bucket) {}

    private static Bucket connect(AbstractRedisClient client, int perSecond) {
        var builder = client instanceof RedisClusterClient cluster
                ? Bucket4jLettuce.casBasedBuilder(cluster)
                : Bucket4jLettuce.casBasedBuilder((RedisClient) client);
        return builder.requestTimeout(Duration.ofSeconds(2))
                // an idle bucket's key goes away once it would be full again anyway
                .expirationAfterWrite(
                        ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
                .build()
                .builder()
                .build(sharedKey(perSecond).getBytes(StandardCharsets.UTF_8), () -> configuration(perSecond));
    }

    private static BucketConfiguration configuration(int perSecond) {
        return BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(perSecond).refillGreedy(perSecond, Duration.ofSeconds(1)))
                .build();
    }

    /**
     * Blocks until {@code n} writes are allowed.
     *
     * @throws IllegalStateException when interrupted (the container is stopping); the interrupt flag is kept
     */
    void acquire(long n) {
        long remaining = n;
        try {
            while (remaining > 0) {
                long part = Math.min(remaining, capacity);
                bucket.get().asBlocking().consume(part, blocking);
                remaining -= part;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for write-rate tokens", e);
        }
    }
}
