package com.flashcoupon.api.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.core.instrument.Counter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

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
 */
final class ReplicaWaits {

    /** How much longer than its own time-out a {@code WAIT} may take before it counts as lost. */
    static final long GRACE_MS = 2_000;

    private final Counter sent;
    private CompletableFuture<Long> next;
    private boolean waiting;
    private long sentAtNanos;
    private long generation;

    /** {@code sent} counts the {@code WAIT}s sent: against the admissions, how many each one covered. */
    ReplicaWaits(Counter sent) {
        this.sent = sent;
    }

    /** The number of replicas that acknowledged a {@code WAIT} sent after this call. */
    synchronized CompletionStage<Long> join(
            StatefulConnection<String, String> connection, int replicas, long timeoutMs) {
        if (next == null) {
            next = new CompletableFuture<Long>().orTimeout(timeoutMs + GRACE_MS, TimeUnit.MILLISECONDS);
        }
        CompletableFuture<Long> joined = next;
        if (waiting && System.nanoTime() - sentAtNanos > TimeUnit.MILLISECONDS.toNanos(timeoutMs + GRACE_MS)) {
            waiting = false; // the last WAIT is lost: its callers have failed already
        }
        if (!waiting) {
            send(connection, replicas, timeoutMs);
        }
        return joined;
    }

    /** Sends the next {@code WAIT} for everyone who joined; called with the lock held. */
    private void send(StatefulConnection<String, String> connection, int replicas, long timeoutMs) {
        CompletableFuture<Long> batch = next;
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
