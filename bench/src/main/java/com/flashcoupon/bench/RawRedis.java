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

    RawRedis(String url, Path script) throws IOException {
        this.client = RedisClient.create(url);
        this.connection = client.connect();
        this.async = connection.async();
        this.sha = connection.sync().scriptLoad(withLimits(script));
    }

    /**
     * The script as the api runs it: {@code limits.lua} (the rate limits' check, beside it) in front. Called here
     * without limit keys or rates, so the limits are off, as in the bench's api runs with limits off.
     */
    static String withLimits(Path script) throws IOException {
        Path limits = script.resolveSibling("limits.lua");
        return (Files.exists(limits) ? Files.readString(limits) : "") + Files.readString(script);
    }

    static String[] keys(long couponId) {
        return new String[] {
            CouponKeys.meta(couponId),
            CouponKeys.queue(couponId),
            CouponKeys.seq(couponId),
            CouponKeys.done(couponId),
            CouponKeys.stats(couponId),
            CouponKeys.result(couponId)
        };
    }

    void delete(long couponId) {
        String[] k = keys(couponId);
        connection.sync().del(k[0], k[1], k[2], k[3], k[4], k[5], CouponKeys.cursor(couponId));
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

    /** Redis' {@code used_memory}, or -1. */
    long usedMemory() {
        for (String line : connection.sync().info("memory").split("\r?\n")) {
            if (line.startsWith("used_memory:")) {
                return Long.parseLong(line.substring("used_memory:".length()).trim());
            }
        }
        return -1;
    }

    /** {@link #run} on a coupon of {@code stock} that exists only in Redis, open since the epoch, deleted after. */
    Measured runOnScratch(String label, long stock, int concurrency, int total, IntFunction<String> members)
            throws InterruptedException {
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
        try {
            return run(label, scratch, concurrency, total, members);
        } finally {
            delete(scratch);
        }
    }

    /** Runs the script {@code total} times for {@code members.apply(i)}, at most {@code concurrency} in flight. */
    Measured run(String label, long couponId, int concurrency, int total, IntFunction<String> members)
            throws InterruptedException {
        String[] keys = keys(couponId);
        Recorder recorder = new Recorder();
        Semaphore window = new Semaphore(concurrency);
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            window.acquire();
            long sent = System.nanoTime();
            async.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, members.apply(i))
                    .whenComplete((reply, error) -> {
                        if (error != null) {
                            recorder.failed(error);
                        } else {
                            int code = (int) (long) (Long) reply.get(0);
                            recorder.answered(
                                    code >= 0 && code < OUTCOMES.length ? OUTCOMES[code] : "code " + code,
                                    System.nanoTime() - sent);
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
        String[] keys = keys(couponId);
        Semaphore window = new Semaphore(concurrency);
        AtomicLong admitted = new AtomicLong();
        for (long i = from; i < to; i++) {
            window.acquire();
            async.<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys, prefix + i)
                    .whenComplete((reply, error) -> {
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
