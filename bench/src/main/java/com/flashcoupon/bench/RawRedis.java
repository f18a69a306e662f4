package com.flashcoupon.bench;

import com.flashcoupon.contract.CouponKeys;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * Redis without HTTP: the api's own admission script (loaded from its source file, run by EVALSHA) through Lettuce's
 * async API, at a fixed number of requests in flight over one connection, as the api itself shares one connection.
 * Also fills a coupon's queue fast for the growth and issuance phases.
 */
final class RawRedis implements AutoCloseable {

    /** The script's first reply, as labels (see admit.lua). */
    static final String[] OUTCOMES = {
        "mirror missing", "admitted", "asked before", "sold out", "not open", "closed", "rate limited"
    };

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> async;
    private final String sha;
    private final String[] limitArgs;
    private final String address;

    /**
     * {@code memberPerSecond} and {@code addressPerSecond}: the api's rate limits (0: off), charged by the script here
     * as the api charges them, so that the raw runs do the api's work in Redis; the address is 127.0.0.1, the bench's.
     */
    RawRedis(String url, Path script, int memberPerSecond, int addressPerSecond) throws IOException {
        this.client = RedisClient.create(url);
        this.connection = client.connect();
        this.async = connection.async();
        this.sha = connection.sync().scriptLoad(withLimits(script));
        this.limitArgs = new String[] {
            Integer.toString(memberPerSecond),
            Long.toString(ReferenceServer.burst(memberPerSecond)),
            Integer.toString(addressPerSecond),
            Long.toString(ReferenceServer.burst(addressPerSecond))
        };
        this.address = addressPerSecond > 0 ? "127.0.0.1" : "";
    }

    /**
     * The script as the api runs it: the functions it calls, beside it, in front: {@code draw.lua} (a
     * RANDOMIZED_START event's window), {@code limits.lua} (the rate limits' check) and {@code gate.lua} (who the event is
     * for, issue 26: without its fields in the meta, it lets everyone through).
     */
    static String withLimits(Path script) throws IOException {
        StringBuilder text = new StringBuilder();
        for (String functions : new String[] {"draw.lua", "limits.lua", "gate.lua"}) {
            Path file = script.resolveSibling(functions);
            if (Files.exists(file)) {
                text.append(Files.readString(file));
            }
        }
        return text.append(Files.readString(script)).toString();
    }

    /** The script's keys for one member: the coupon's, then the member's and the address's limit keys. */
    String[] keys(long couponId, String member) {
        return CouponKeys.admission(
                couponId, CouponKeys.memberLimit(couponId, member), CouponKeys.addressLimit(couponId, address));
    }

    /** The script's arguments for one member: the member, then the limits' rates and bursts. */
    String[] args(String member) {
        return new String[] {member, limitArgs[0], limitArgs[1], limitArgs[2], limitArgs[3]};
    }

    private io.lettuce.core.RedisFuture<List<Object>> admit(
            RedisAsyncCommands<String, String> commands, long couponId, String member) {
        return commands.evalsha(sha, ScriptOutputType.MULTI, keys(couponId, member), args(member));
    }

    void delete(long couponId) {
        connection.sync().del(CouponKeys.state(couponId).toArray(String[]::new));
    }

    long queued(long couponId) {
        return connection.sync().zcard(CouponKeys.queue(couponId));
    }

    /** How Redis persists: {@code appendonly} and {@code appendfsync}, which bound its raw ceiling. */
    String persistence() {
        java.util.Map<String, String> config = connection.sync().configGet("appendonly", "appendfsync");
        return "appendonly " + config.getOrDefault("appendonly", "?") + ", appendfsync "
                + config.getOrDefault("appendfsync", "?");
    }

    /** The Redis server's process id (INFO server), for its CPU time from /proc when it runs here; -1 if unknown. */
    long processId() {
        for (String line : connection.sync().info("server").split("\r?\n")) {
            if (line.startsWith("process_id:")) {
                return Long.parseLong(line.substring("process_id:".length()).trim());
            }
        }
        return -1;
    }

    /**
     * Puts {@code n} members into a fair start's draw as {@code admit.lua} does within the window (score 0), pipelined
     * in batches of 10,000: a million entrants without a million HTTP requests.
     */
    void fillDraw(long couponId, String memberPrefix, int n) throws InterruptedException {
        String key = CouponKeys.draw(couponId);
        for (int from = 0; from < n; from += 10_000) {
            List<io.lettuce.core.RedisFuture<Long>> sent = new java.util.ArrayList<>();
            for (int i = from; i < Math.min(n, from + 10_000); i += 1_000) {
                Object[] scoresAndMembers = new Object[2 * Math.min(1_000, n - i)];
                for (int j = 0; j < scoresAndMembers.length / 2; j++) {
                    scoresAndMembers[2 * j] = 0.0;
                    scoresAndMembers[2 * j + 1] = memberPrefix + (i + j);
                }
                sent.add(async.zadd(key, scoresAndMembers));
            }
            for (var future : sent) {
                try {
                    future.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw new IllegalStateException("filling the draw of coupon " + couponId, e.getCause());
                }
            }
        }
    }

    /** Whether a fair start's draw is made in Redis (its meta's {@code drawn}). */
    boolean drawn(long couponId) {
        return "1".equals(connection.sync().hget(CouponKeys.meta(couponId), "drawn"));
    }

    /** Redis' {@code used_memory}, or -1. */
    long usedMemory() {
        for (String line : connection.sync().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        return -1;
    }

    /**
     * {@link #run} on a coupon of {@code stock} that exists only in Redis, open since the epoch, deleted after:
     * pipelined, up to {@code concurrency} scripts in flight on one connection.
     */
    Measured runOnScratch(String label, long stock, int concurrency, int total, IntFunction<String> members)
            throws InterruptedException {
        long scratch = scratch(stock);
        try {
            return run(label, scratch, concurrency, total, members);
        } finally {
            delete(scratch);
        }
    }

    /**
     * A coupon of {@code stock} that exists only in Redis (no MySQL row, no drain), open since the epoch: for the runs
     * straight at the script and for the reference server. {@link #delete} it after.
     */
    long scratch(long stock) {
        long scratch = 8_000_000_000_000L + ThreadLocalRandom.current().nextLong(1_000_000_000L);
        delete(scratch);
        connection
                .sync()
                .hset(
                        CouponKeys.meta(scratch),
                        java.util.Map.of(
                                "total", Long.toString(stock),
                                "openAt", "0",
                                "closeAt", "0",
                                "closed", "0",
                                "rate", "1000",
                                "base", "0"));
        return scratch;
    }

    /**
     * The script without pipelining: {@code connections} connections, each a closed loop with one script in flight
     * (the next sent when the last is answered), as {@code connections} HTTP clients each waiting for their answer
     * before asking again. On a coupon of {@code total} that exists only in Redis, deleted after.
     */
    Measured runUnpipelined(String label, int connections, int total, IntFunction<String> members)
            throws InterruptedException {
        long coupon = scratch(total);
        List<StatefulRedisConnection<String, String>> opened = new java.util.ArrayList<>();
        try {
            for (int c = 0; c < connections; c++) {
                opened.add(client.connect());
            }
            Recorder recorder = new Recorder();
            AtomicLong next = new AtomicLong();
            java.util.concurrent.CountDownLatch finished = new java.util.concurrent.CountDownLatch(connections);
            long start = System.nanoTime();
            for (StatefulRedisConnection<String, String> c : opened) {
                loop(c.async(), coupon, total, members, next, recorder, finished);
            }
            if (!finished.await(10, TimeUnit.MINUTES)) {
                throw new IllegalStateException("the unpipelined run did not finish within 10 minutes");
            }
            return recorder.result(label, connections, Duration.ofNanos(System.nanoTime() - start));
        } finally {
            opened.forEach(StatefulRedisConnection::close);
            delete(coupon);
        }
    }

    /** One connection's closed loop: sends request {@code next}, and from its answer the next one, until all are sent. */
    private void loop(
            RedisAsyncCommands<String, String> commands,
            long coupon,
            int total,
            IntFunction<String> members,
            AtomicLong next,
            Recorder recorder,
            java.util.concurrent.CountDownLatch finished) {
        long i = next.getAndIncrement();
        if (i >= total) {
            finished.countDown();
            return;
        }
        long sent = System.nanoTime();
        admit(commands, coupon, members.apply((int) i)).whenComplete((reply, error) -> {
            if (error != null) {
                recorder.failed(error);
            } else {
                recorder.answered(outcome(reply), System.nanoTime() - sent);
            }
            loop(commands, coupon, total, members, next, recorder, finished);
        });
    }

    static String outcome(List<Object> reply) {
        int code = (int) (long) (Long) reply.get(0);
        return code >= 0 && code < OUTCOMES.length ? OUTCOMES[code] : "code " + code;
    }

    /** Runs the script {@code total} times for {@code members.apply(i)}, at most {@code concurrency} in flight. */
    Measured run(String label, long couponId, int concurrency, int total, IntFunction<String> members)
            throws InterruptedException {
        Recorder recorder = new Recorder();
        Semaphore window = new Semaphore(concurrency);
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            window.acquire();
            long sent = System.nanoTime();
            admit(async, couponId, members.apply(i)).whenComplete((reply, error) -> {
                if (error != null) {
                    recorder.failed(error);
                } else {
                    recorder.answered(outcome(reply), System.nanoTime() - sent);
                }
                window.release();
            });
        }
        if (!window.tryAcquire(concurrency, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Redis did not answer within 60 s");
        }
        return recorder.result(label, concurrency, Duration.ofNanos(System.nanoTime() - start));
    }

    /** Admits members {@code prefix + i} for i in [from, to) with the script, fast; returns how many it admitted. */
    long fill(long couponId, String prefix, long from, long to, int concurrency) throws InterruptedException {
        Semaphore window = new Semaphore(concurrency);
        AtomicLong admitted = new AtomicLong();
        for (long i = from; i < to; i++) {
            window.acquire();
            admit(async, couponId, prefix + i).whenComplete((reply, error) -> {
                if (error == null && (Long) reply.get(0) == 1L) {
                    admitted.incrementAndGet();
                }
                window.release();
            });
        }
        if (!window.tryAcquire(concurrency, 60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("Redis did not answer within 60 s");
        }
        return admitted.get();
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
