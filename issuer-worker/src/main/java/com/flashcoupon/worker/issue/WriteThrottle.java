package com.flashcoupon.worker.issue;

import io.github.bucket4j.BlockingStrategy;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;
import java.time.Duration;

/**
 * This instance's wallet write-rate limit: a Bucket4j bucket of {@code perSecond} tokens refilled greedily, one token
 * per record. {@link #acquire} blocks until the tokens are there, so MySQL sees a steady rate however fast the
 * records arrive. Requests larger than the bucket are taken in bucket-sized parts.
 */
final class WriteThrottle {

    private final Bucket bucket;
    private final long capacity;
    private final BlockingStrategy blocking;

    WriteThrottle(int perSecond) {
        this(perSecond, TimeMeter.SYSTEM_NANOTIME, BlockingStrategy.PARKING);
    }

    WriteThrottle(int perSecond, TimeMeter clock, BlockingStrategy blocking) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("perSecond must be at least 1, was " + perSecond);
        }
        this.capacity = perSecond;
        this.blocking = blocking;
        this.bucket = Bucket.builder()
                .addLimit(limit -> limit.capacity(perSecond).refillGreedy(perSecond, Duration.ofSeconds(1)))
                .withCustomTimePrecision(clock)
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
                bucket.asBlocking().consume(part, blocking);
                remaining -= part;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for write-rate tokens", e);
        }
    }
}
