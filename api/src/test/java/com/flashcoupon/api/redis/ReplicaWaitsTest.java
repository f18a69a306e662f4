package com.flashcoupon.api.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandType;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * F15: the group commit of {@code WAIT} once had no time-out of its own. A send that threw, or a {@code WAIT} whose
 * reply never came, left it "waiting" for ever: that caller and every later one never got an answer. The connection
 * here is a stand-in whose {@code WAIT} replies as each test says (the real server's behaviour is in ReplicaWaitTest).
 */
class ReplicaWaitsTest {

    private final ReplicaWaits waits = new ReplicaWaits(new SimpleMeterRegistry().counter("waits"));

    /** The command time-out of the stand-in connection. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    /** The time-outs of the {@code WAIT}s sent, in order. */
    private final java.util.List<Long> sentTimeouts = new java.util.concurrent.CopyOnWriteArrayList<>();

    /**
     * A {@code WAIT} asked for as long as the command time-out, or longer, would be cut by it (ReplicaWaitTest shows it
     * on a real server): it is sent for at most half of it, and one asked for less is sent as asked.
     */
    @Test
    void shouldSendAWaitForAtMostHalfTheCommandTimeOut() {
        StatefulRedisConnection<String, String> connection = connection(() -> answered(1));

        assertThat(waits.join(connection, 1, 5_000).toCompletableFuture().join())
                .isEqualTo(1L);
        assertThat(waits.join(connection, 1, 2_000).toCompletableFuture().join())
                .isEqualTo(1L);
        assertThat(waits.join(connection, 1, 300).toCompletableFuture().join()).isEqualTo(1L);

        assertThat(sentTimeouts).containsExactly(1_000L, 1_000L, 300L);
        assertThat(ReplicaWaits.bounded(5_000, Duration.ZERO))
                .as("no command time-out")
                .isEqualTo(5_000);
        assertThat(ReplicaWaits.bounded(5_000, Duration.ofMillis(1)))
                .as("never WAIT 0")
                .isEqualTo(1);
    }

    @Test
    void shouldAnswerLaterCallersWhenSendingAWaitThrew() {
        StatefulRedisConnection<String, String> connection = connection(
                () -> {
                    throw new IllegalStateException("the send failed");
                },
                () -> answered(1));

        CompletableFuture<Long> first = waits.join(connection, 1, 100).toCompletableFuture();
        assertThat(first).isCompletedExceptionally();

        CompletableFuture<Long> second = waits.join(connection, 1, 100).toCompletableFuture();
        await().atMost(Duration.ofSeconds(5)).until(second::isDone);
        assertThat(second.join()).isEqualTo(1L);
    }

    @Test
    void shouldFailItsCallersAndSendAgainWhenAWaitNeverAnswers() {
        StatefulRedisConnection<String, String> connection = connection(ReplicaWaitsTest::lost, () -> answered(1));

        CompletableFuture<Long> first = waits.join(connection, 1, 10).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(first::isDone);
        assertThat(first).isCompletedExceptionally();

        CompletableFuture<Long> second = waits.join(connection, 1, 10).toCompletableFuture();
        await().atMost(Duration.ofSeconds(10)).until(second::isDone);
        assertThat(second.join()).isEqualTo(1L);
    }

    private static RedisFuture<Long> lost() {
        return new AsyncCommand<>(new Command<>(CommandType.WAIT, new IntegerOutput<>(StringCodec.UTF8)));
    }

    private static RedisFuture<Long> answered(long replicas) {
        var output = new IntegerOutput<String, String>(StringCodec.UTF8);
        var command = new AsyncCommand<>(new Command<>(CommandType.WAIT, output));
        output.set(replicas);
        command.complete();
        return command;
    }

    /** A connection whose successive {@code WAIT}s reply as given (the last one for every later call). */
    @SafeVarargs
    @SuppressWarnings("unchecked")
    private StatefulRedisConnection<String, String> connection(Supplier<RedisFuture<Long>>... replies) {
        Deque<Supplier<RedisFuture<Long>>> next = new ArrayDeque<>(java.util.List.of(replies));
        RedisAsyncCommands<String, String> commands = (RedisAsyncCommands<String, String>) Proxy.newProxyInstance(
                ReplicaWaitsTest.class.getClassLoader(),
                new Class<?>[] {RedisAsyncCommands.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("waitForReplication")) {
                        sentTimeouts.add((Long) args[1]);
                        return (next.size() > 1 ? next.poll() : next.peek()).get();
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        return (StatefulRedisConnection<String, String>) Proxy.newProxyInstance(
                ReplicaWaitsTest.class.getClassLoader(),
                new Class<?>[] {StatefulRedisConnection.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("async")) {
                        return commands;
                    }
                    if (method.getName().equals("getTimeout")) {
                        return COMMAND_TIMEOUT;
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }
}
