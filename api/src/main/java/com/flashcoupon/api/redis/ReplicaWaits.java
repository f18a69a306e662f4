package com.flashcoupon.api.redis;

import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.micrometer.core.instrument.Counter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Group commit of Redis {@code WAIT} on one connection: callers whose writes are done join the next {@code WAIT}; at
 * most one is out at a time, and when it returns, one more is sent for everyone who joined meanwhile. A {@code WAIT}
 * covers every write sent on its connection before it (Redis counts the connection's replication offset), so each
 * caller's write is covered by the {@code WAIT} it joined, which is sent after the write's reply came.
 */
final class ReplicaWaits {

    private final Counter sent;
    private CompletableFuture<Long> next;
    private boolean waiting;

    /** {@code sent} counts the {@code WAIT}s sent: against the admissions, how many each one covered. */
    ReplicaWaits(Counter sent) {
        this.sent = sent;
    }

    /** The number of replicas that acknowledged a {@code WAIT} sent after this call. */
    synchronized CompletionStage<Long> join(
            StatefulConnection<String, String> connection, int replicas, long timeoutMs) {
        if (next == null) {
            next = new CompletableFuture<>();
        }
        CompletableFuture<Long> joined = next;
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
        sent.increment();
        CompletionStage<Long> sent = connection instanceof StatefulRedisClusterConnection<String, String> cluster
                ? cluster.async().waitForReplication(replicas, timeoutMs)
                : ((StatefulRedisConnection<String, String>) connection)
                        .async()
                        .waitForReplication(replicas, timeoutMs);
        sent.whenComplete((acknowledged, error) -> {
            synchronized (this) {
                waiting = false;
                if (next != null) {
                    send(connection, replicas, timeoutMs);
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
