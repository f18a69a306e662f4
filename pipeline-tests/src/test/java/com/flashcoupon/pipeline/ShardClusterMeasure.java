package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.StockShards;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A measurement, not part of the suite (its name does not end in Test; run it with {@code bin/test -pl pipeline-tests
 * -am -Dtest=ShardClusterMeasure}): the whole pipeline (the api over HTTP, the drainer, Kafka, the worker, MySQL) on a
 * Redis Cluster of three primaries and three replicas with AOF {@code appendfsync always} and replica waits on, the
 * topology of {@code bin/up --cluster}. A crowd of N + 10% asks one event four times, with 6, 1, 1 and 6 stock shards;
 * for each, every primary's script calls and the Redis CPU they took ({@code INFO commandstats}: EVAL and EVALSHA,
 * reset before the crowd, read when its last answer came), exactly N issued with no stock left anywhere, and the worst
 * inversion of the publication order against the admission times the shards' primaries recorded. Writes
 * target/stock-shards-api.md.
 */
class ShardClusterMeasure {

    private static final int TOTAL = Integer.getInteger("measure.total", 3_000);
    private static final int CONCURRENCY = Integer.getInteger("measure.concurrency", 64);

    private static PrivateRedisCluster cluster;
    private static Stack stack;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void start() throws Exception {
        cluster = new PrivateRedisCluster();
        client = cluster.client();
        connection = client.connect();
        Map<String, Object> api = new HashMap<>();
        api.put("coupon.redis.cluster-nodes", cluster.nodes());
        api.put("coupon.redis.min-replicas", "1");
        api.put("coupon.shards.max-served", "6");
        api.put("coupon.drain.tick", "100ms");
        api.put("coupon.warmup.requests", "0");
        stack = new Stack(api, Map.of("coupon.redis.cluster-nodes", cluster.nodes()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (connection != null) {
            connection.close();
            client.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static long create(int shards) {
        return Stack.createCoupon(stack.http(), "Measured", TOTAL, 5_000, shards);
    }

    /**
     * The worst inversion of the publication order (the wallets' request_seq) against the admission times (µs, by the
     * shards' primaries' clocks): the most a member published later was admitted before one published earlier.
     */
    private static long worstInversion(long couponId, int shards) {
        Map<String, Double> times = new HashMap<>();
        for (int shard = 0; shard < shards; shard++) {
            connection
                    .sync()
                    .zrangeWithScores(StockShards.times(StockShards.tag(couponId, shards, shard)), 0, -1)
                    .forEach(entry -> times.put(entry.getValue(), entry.getScore()));
        }
        List<String> published = stack.jdbc
                .sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ? ORDER BY request_seq")
                .param(couponId)
                .query(String.class)
                .list();
        double latest = Double.NEGATIVE_INFINITY;
        double worst = 0;
        for (String member : published) {
            double time = times.get(member);
            worst = Math.max(worst, latest - time);
            latest = Math.max(latest, time);
        }
        return (long) worst;
    }

    @Test
    void measure() throws Exception {
        StringBuilder table = new StringBuilder(PrimaryScripts.header());
        StringBuilder summary = new StringBuilder();
        int run = 0;
        for (int shards : new int[] {6, 1, 1, 6}) {
            run++;
            long couponId = create(shards);
            List<String> members = Crowd.members("measure-" + run, TOTAL + TOTAL / 10);
            var positions = stack.api.getBean(com.flashcoupon.api.shard.ShardPositions.class);
            long exactBefore = positions.exactReads();
            PrimaryScripts.read(connection, true);
            long started = System.nanoTime();
            List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, members, 0, CONCURRENCY);
            double seconds = (System.nanoTime() - started) / 1e9;
            Map<String, PrimaryScripts.Scripts> used = PrimaryScripts.read(connection, false);
            long exact = positions.exactReads() - exactBefore;

            Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
            assertThat(byStatus).as("no answer: %s", Crowd.noAnswers(answers)).containsOnlyKeys(202, 409);
            assertThat(byStatus).containsEntry(202, (long) TOTAL).containsEntry(409, (long) TOTAL / 10);
            await().atMost(Duration.ofSeconds(180))
                    .pollInterval(Duration.ofMillis(500))
                    .until(() -> stack.walletCount(couponId) >= TOTAL);
            assertThat(stack.walletCount(couponId)).isEqualTo(TOTAL);
            long inversion = -1;
            if (shards > 1) {
                for (int shard = 0; shard < shards; shard++) {
                    String tag = StockShards.tag(couponId, shards, shard);
                    Map<String, String> stock = connection.sync().hgetall(StockShards.stock(tag));
                    long cap = Long.parseLong(stock.get("share")) + Long.parseLong(stock.get("moved"));
                    assertThat(cap)
                            .as("shard %d", shard)
                            .isEqualTo(connection.sync().zcard(StockShards.queue(tag)));
                    assertThat(connection.sync().hlen(StockShards.escrow(tag))).isZero();
                }
                inversion = worstInversion(couponId, shards);
            }

            long all = used.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::calls)
                    .sum();
            PrimaryScripts.Scripts hottest = used.values().stream()
                    .max((a, b) -> Long.compare(a.usec(), b.usec()))
                    .orElseThrow();
            long hottestCalls = used.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::calls)
                    .max()
                    .orElseThrow();
            long cpu = used.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::usec)
                    .sum();
            table.append(PrimaryScripts.rows(run, shards, used));
            summary.append(String.format(
                    Locale.ROOT,
                    "- run %d, K=%d: %,d asks in %.1f s (%.0f/s); %.2f script calls per ask; the hottest primary by"
                            + " calls %.1f%% of them; by CPU %.1f%% of the scripts' CPU, %.1f µs per admission (of"
                            + " %,d); worst order inversion %s; places read exactly at admission %,d%n",
                    run,
                    shards,
                    answers.size(),
                    seconds,
                    answers.size() / seconds,
                    (double) all / answers.size(),
                    100.0 * hottestCalls / all,
                    100.0 * hottest.usec() / cpu,
                    (double) hottest.usec() / TOTAL,
                    TOTAL,
                    inversion < 0 ? "n/a (one shard: one queue)" : inversion + " µs",
                    exact));
        }
        table.append('\n').append(summary);
        System.out.println("SHARDS-API\n" + table);
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target", "stock-shards-api.md"), table);
    }
}
