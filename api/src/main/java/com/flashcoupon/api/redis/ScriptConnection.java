package com.flashcoupon.api.redis;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.StringCodec;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.netty.util.internal.ThreadExecutorMap;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * A Redis connection of the api's own for the member endpoints' scripts (admission, status), on Lettuce's async API
 * with Spring's Redis client (standalone or cluster, with its options), and the replica wait of admissions (and of the
 * drainer's claims, which run here for that reason).
 *
 * <p>Its own connection, not Spring's template, for two reasons. {@code WAIT} counts the writes made on the connection
 * it is sent on, so the admissions and their {@code WAIT} must share one connection the api holds itself; and the
 * template costs more per call than the script itself on the hot path (a connection wrapper, {@code usingWhen} and
 * argument conversion per call), which Lettuce's own API does not.
 *
 * <p>The replica wait is group-committed: an admission that needs it joins the next {@code WAIT}; while one is out,
 * the admissions written meanwhile wait for the one after it. One {@code WAIT} thus covers every admission written on
 * the connection before it was sent, and a crowd costs a few {@code WAIT}s per round trip to the replicas, not one per
 * request. On a cluster there is one such queue per primary, since each primary has its own node connection.
 */
@Component
public class ScriptConnection implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ScriptConnection.class);

    private final LettuceConnectionFactory factory;
    private final Map<String, ReplicaWaits> waits = new ConcurrentHashMap<>();
    private volatile Connected connected;
    private volatile boolean running;
    private final AtomicBoolean connecting = new AtomicBoolean();

    private final Counter waitsSent;
    private final AtomicLong epoch = new AtomicLong();
    private final Set<AbstractRedisClient> listenedTo = ConcurrentHashMap.newKeySet();

    /** The connections scripts and their WAITs go over: a loss or a reconnect of one of them raises the epoch. */
    private final Set<Object> watched = ConcurrentHashMap.newKeySet();

    public ScriptConnection(LettuceConnectionFactory factory, MeterRegistry meters) {
        this.factory = factory;
        this.waitsSent = Counter.builder("coupon.redis.replica.waits")
                .description("Redis WAITs sent for admissions and the drainer's claims (coupon.redis.min-replicas);"
                        + " each covers every write made before it on its connection")
                .register(meters);
    }

    /** One script: its text and its SHA-1, sent by {@code EVALSHA} and loaded when Redis does not know it. */
    public record Script(String text, String sha) {

        public static Script of(String text) {
            return new Script(text, sha1(text));
        }
    }

    private record Connected(AbstractRedisClient client, StatefulConnection<String, String> connection) {

        RedisClusterAsyncCommands<String, String> commands() {
            return connection instanceof StatefulRedisClusterConnection<String, String> cluster
                    ? cluster.async()
                    : ((StatefulRedisConnection<String, String>) connection).async();
        }
    }

    /**
     * Runs the script on the keys (one slot) with the arguments; its reply as a list, handed back on the caller's own
     * event loop (see {@link #onCaller}).
     */
    public Mono<List<Object>> eval(Script script, String[] keys, String... args) {
        return Mono.defer(() -> onCaller(evalsha(commands(), script, keys, args)));
    }

    /**
     * The reply, handed to the rest of the request on the event loop that asked: an HTTP request's own loop, which
     * writes its answer without a further hop. Lettuce's async API completes on the connection's one I/O thread; left
     * there, the rest of every request (the status, the JSON, the answer) would run on that one thread, and on a cold
     * JVM the replies of other requests waited behind it past the command time-out (bin/demo's first seconds answered
     * 503). A caller that is not on an event loop gets the reply on Reactor's parallel scheduler.
     */
    private static <T> Mono<T> onCaller(CompletionStage<T> reply) {
        Executor caller = ThreadExecutorMap.currentExecutor();
        if (caller == null) {
            return Mono.fromCompletionStage(reply).publishOn(Schedulers.parallel());
        }
        return Mono.fromCompletionStage(reply.whenCompleteAsync(NOTHING, caller));
    }

    private static final BiConsumer<Object, Throwable> NOTHING = (value, error) -> {};

    private static CompletionStage<List<Object>> evalsha(
            RedisClusterAsyncCommands<String, String> commands, Script script, String[] keys, String[] args) {
        CompletableFuture<List<Object>> answer = new CompletableFuture<>();
        commands.<List<Object>>evalsha(script.sha(), ScriptOutputType.MULTI, keys, args)
                .whenComplete((reply, error) -> {
                    if (error == null) {
                        answer.complete(reply);
                    } else if (error instanceof RedisNoScriptException) {
                        // first use on this server (or after a restart or a failover): EVAL sends and caches it
                        commands.<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args)
                                .whenComplete((again, failed) -> {
                                    if (failed == null) {
                                        answer.complete(again);
                                    } else {
                                        answer.completeExceptionally(failed);
                                    }
                                });
                    } else {
                        answer.completeExceptionally(error);
                    }
                });
        return answer;
    }

    /**
     * Waits until everything written on this connection to the primary of {@code key}'s slot has reached
     * {@code replicas} replicas, or {@code timeoutMs} passed; the number of replicas that acknowledged.
     */
    public Mono<Long> awaitReplicas(String key, int replicas, long timeoutMs) {
        return awaitReplicas(key, replicas, timeoutMs, epoch());
    }

    /**
     * The same, counting none unless the connection stayed the one of {@code since} ({@link #epoch}) until the {@code
     * WAIT} came back: a connection re-established in between is a new client on the server, whose {@code WAIT}
     * covers none of the writes made before.
     */
    public Mono<Long> awaitReplicas(String key, int replicas, long timeoutMs, long since) {
        return awaitOnce(key, replicas, timeoutMs).map(acknowledged -> epoch.get() == since ? acknowledged : 0L);
    }

    /**
     * Rises whenever a connection scripts go over is lost or made again (Lettuce reconnects the same connection object):
     * what a script was sent under, for {@link #awaitReplicas(String, int, long, long)}.
     */
    public long epoch() {
        return epoch.get();
    }

    /** Counts a loss or a reconnect of a connection scripts go over (on a cluster: the primaries' node connections). */
    private void changed(RedisChannelHandler<?, ?> handler) {
        if (watched.contains(handler)) {
            epoch.incrementAndGet();
        }
    }

    private Mono<Long> awaitOnce(String key, int replicas, long timeoutMs) {
        return Mono.defer(() -> {
            Connected now = connected();
            String node = "";
            StatefulConnection<String, String> target = now.connection();
            if (now.connection() instanceof StatefulRedisClusterConnection<String, String> cluster) {
                RedisClusterNode primary = cluster.getPartitions().getMasterBySlot(SlotHash.getSlot(key));
                if (primary == null) {
                    return Mono.error(new RedisConnectionFailureException("no primary for the slot of " + key));
                }
                node = primary.getUri().getHost() + ":" + primary.getUri().getPort();
                target = cluster.getConnection(
                        primary.getUri().getHost(), primary.getUri().getPort());
            }
            watched.add(target);
            StatefulConnection<String, String> on = target;
            ReplicaWaits queue = waits.computeIfAbsent(node, n -> new ReplicaWaits(waitsSent));
            return onCaller(queue.join(on, replicas, timeoutMs));
        });
    }

    private RedisClusterAsyncCommands<String, String> commands() {
        return connected().commands();
    }

    /**
     * The connection, opened on Spring's current client: again when Spring replaced its client (its connection factory
     * was stopped and started, which closes the old client's connections for good). A lost connection is Lettuce's to
     * reconnect, with the client's options (commands fail at once meanwhile).
     */
    private Connected connected() {
        Connected now = connected;
        AbstractRedisClient client = factory.getNativeClient();
        if (now != null && now.client() == client && now.connection().isOpen()) {
            return now;
        }
        if (!running) {
            throw new RedisConnectionFailureException("the api's Redis connection is not started");
        }
        reconnect(client);
        throw new RedisConnectionFailureException("the api's Redis connection is being opened");
    }

    /** Opens a new connection off the event loop (connecting blocks); callers meanwhile get a 503. */
    private void reconnect(AbstractRedisClient client) {
        if (connecting.compareAndSet(false, true)) {
            Schedulers.boundedElastic().schedule(() -> {
                try {
                    open(client);
                } finally {
                    connecting.set(false);
                }
            });
        }
    }

    private void open(AbstractRedisClient client) {
        try {
            if (listenedTo.add(client)) {
                client.addListener(new RedisConnectionStateListener() {
                    @Override
                    public void onRedisConnected(RedisChannelHandler<?, ?> handler, SocketAddress address) {
                        changed(handler);
                    }

                    @Override
                    public void onRedisDisconnected(RedisChannelHandler<?, ?> handler) {
                        changed(handler);
                    }
                });
            }
            StatefulConnection<String, String> connection = client instanceof RedisClusterClient cluster
                    ? cluster.connect(StringCodec.UTF8)
                    : ((RedisClient) client).connect(StringCodec.UTF8);
            watched.add(connection);
            Connected old = connected;
            connected = new Connected(client, connection);
            waits.clear();
            if (old != null) {
                // a connection replaced is a change as a reconnect of the same one is; this one's own connect event
                // came before it was watched, so it is counted here (a call that found the old one closed while
                // Lettuce was still reconnecting it took this path, and the epoch rose once instead of twice)
                epoch.incrementAndGet();
                old.connection().closeAsync();
            }
        } catch (RuntimeException e) {
            log.warn("cannot open the api's Redis connection yet: {}", e.toString());
        }
    }

    /** Opened at start-up, on the starting thread, so that the first request finds it. */
    @Override
    public void start() {
        running = true;
        open(factory.getNativeClient());
    }

    @Override
    public void stop() {
        running = false;
        Connected old = connected;
        connected = null;
        if (old != null) {
            old.connection().close();
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    /** Right after Spring's connection factory, whose client it uses, and before the web server takes requests. */
    @Override
    public int getPhase() {
        return factory.getPhase() + 1;
    }

    private static String sha1(String text) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
