package com.flashcoupon.api.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit of Redis {@code WAIT} on one connection: callers whose writes are done join the next {@code WAIT}; at
 * most one is out at a time, and when it returns, one more is sent for everyone who joined meanwhile. A {@code WAIT}
 * covers every write sent on its connection before it (Redis counts the connection's replication offset), so each
 * caller's write is covered by the {@code WAIT} it joined, which is sent after the write's reply came.
 *
 * <p>With a time-out of its own: a {@code WAIT} whose reply never comes (or a send that throws) would otherwise leave
 * every later caller waiting for ever, each holding an overload permit, until the guard refused every member request.
 * A caller's future fails after the {@code WAIT}'s time-out plus {@link #GRACE_MS}, and a {@code WAIT} out for that
 * long no longer keeps the next one from being sent.
 *
 * <p>A {@code WAIT} asks Redis for at most half the connection's command time-out ({@link #bounded}). Redis answers a
 * {@code WAIT} when its time-out runs out, with the replicas that confirmed; but the client's command time-out
 * ({@code spring.data.redis.timeout}) runs from the same moment, and a {@code WAIT} as long as it (or longer) is cut by
 * it: a {@link io.lettuce.core.RedisCommandTimeoutException} instead of an answer. A drain turn then failed instead of
 * counting the queue as unreplicated (and gave its lease up), and an admission failed the same way. Bounded, the
 * {@code WAIT} always answers first, with the other half left for a busy machine's round trip.
 */
final class ReplicaWaits {

    private static final Logger log = LoggerFactory.getLogger(ReplicaWaits.class);

    /** How much longer than its own time-out a {@code WAIT} may take before it counts as lost. */
    static final long GRACE_MS = 2_000;

    private final Counter sent;
    private CompletableFuture<Long> next;
    private CompletableFuture<Long> inFlight;
    private boolean waiting;
    private long sentAtNanos;
    private long generation;
    private boolean boundLogged;

    /** {@code sent} counts the {@code WAIT}s sent: against the admissions, how many each one covered. */
    ReplicaWaits(Counter sent) {
        this.sent = sent;
    }

    /** The number of replicas that acknowledged a {@code WAIT} sent after this call. */
    synchronized CompletionStage<Long> join(StatefulConnection<String, String> connection, int replicas, long askedMs) {
        long timeoutMs = bounded(askedMs, connection.getTimeout());
        if (timeoutMs < askedMs && !boundLogged) {
            boundLogged = true;
            log.warn(
                    "a replica wait of {} ms is bounded to {} ms: half the Redis command time-out ({}), so that WAIT"
                            + " answers before the client gives up on it",
                    askedMs,
                    timeoutMs,
                    connection.getTimeout());
        }
        if (next == null) {
            next = new CompletableFuture<Long>().orTimeout(timeoutMs + GRACE_MS, TimeUnit.MILLISECONDS);
        }
        CompletableFuture<Long> joined = next;
        // the last WAIT is lost once its callers have failed (its reply completes them only after clearing waiting), or
        // once it is out for longer than they wait: a thread descheduled between the batch's creation and the send
        // (a busy machine) would otherwise leave a caller joined after their failure without a WAIT for its time-out
        if (waiting
                && (inFlight.isDone()
                        || System.nanoTime() - sentAtNanos > TimeUnit.MILLISECONDS.toNanos(timeoutMs + GRACE_MS))) {
            waiting = false;
        }
        if (!waiting) {
            send(connection, replicas, timeoutMs);
        }
        return joined;
    }

    /**
     * The time-out to send with a {@code WAIT} asked for {@code askedMs} on a connection whose commands time out after
     * {@code commandTimeout}: at most half of it (at least 1 ms: {@code WAIT 0} would block for ever). A command
     * time-out of zero or less (none) bounds nothing.
     */
    static long bounded(long askedMs, Duration commandTimeout) {
        if (commandTimeout == null || commandTimeout.isZero() || commandTimeout.isNegative()) {
            return askedMs;
        }
        return Math.max(1, Math.min(askedMs, commandTimeout.toMillis() / 2));
    }

    /** Sends the next {@code WAIT} for everyone who joined; called with the lock held. */
    private void send(StatefulConnection<String, String> connection, int replicas, long timeoutMs) {
        CompletableFuture<Long> batch = next;
        inFlight = batch;
        next = null;
        waiting = true;
        sentAtNanos = System.nanoTime();
        long mine = ++generation;
        sent.increment();
        CompletionStage<Long> reply;
        try {
            reply = connection instanceof StatefulRedisClusterConnection<String, String> cluster
                    ? cluster.async().waitForReplication(replicas, timeoutMs)
                    : ((StatefulRedisConnection<String, String>) connection)
                            .async()
                            .waitForReplication(replicas, timeoutMs);
        } catch (RuntimeException e) {
            waiting = false;
            batch.completeExceptionally(e);
            return;
        }
        reply.whenComplete((acknowledged, error) -> {
            synchronized (this) {
                if (generation == mine) {
                    waiting = false;
                    if (next != null) {
                        send(connection, replicas, timeoutMs);
                    }
                }
            }
            if (error == null) {
                batch.complete(acknowledged);
            } else {
                batch.completeExceptionally(error);
            }
        });
    }
}
