package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.api.shard.ShardTransfers;
import com.flashcoupon.contract.StockShards;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * An event's stock over six shards on a Redis Cluster of the test's own, three primaries (docs/architecture.md, "Stock
 * shards"): the shards two to a primary, a crowd of N + 10% admitted exactly N with nothing left or in escrow on any
 * shard, and each primary's share of the event's script calls (its {@code INFO commandstats}) against one shard.
 */
class ShardStockClusterTest {

    private static PrivateRedisCluster cluster;
    private static RedisClusterClient client;
    private static StatefulRedisClusterConnection<String, String> connection;
    private static ShardStock stock;

    @BeforeAll
    static void start() throws Exception {
        cluster = new PrivateRedisCluster();
        client = cluster.client();
        connection = client.connect();
        stock = new ShardStock(new ShardStock.Redis() {
            @Override
            public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
                return Mono.fromCompletionStage(
                        connection.async().<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args));
            }
        });
    }

    @AfterAll
    static void stop() throws Exception {
        if (connection != null) {
            connection.close();
            client.shutdown();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Map<String, PrimaryScripts.Scripts> crowd(long coupon, int shards, int total) {
        stock.deal().init(coupon, shards, total).block();
        PrimaryScripts.read(connection, true);
        List<String> crowd = IntStream.range(0, total + total / 10)
                .mapToObj(i -> "m-" + i + "-" + UUID.randomUUID())
                .toList();
        Map<ShardStock.Outcome, Long> answers = Flux.fromIterable(crowd)
                .flatMap(member -> stock.admit(coupon, shards, member), 64)
                .collect(Collectors.groupingBy(ShardStock.Result::outcome, Collectors.counting()))
                .block();
        Map<String, PrimaryScripts.Scripts> calls = PrimaryScripts.read(connection, false);
        assertThat(answers).containsEntry(ShardStock.Outcome.ADMITTED, (long) total);
        assertThat(answers).containsEntry(ShardStock.Outcome.SOLD_OUT, (long) total / 10);
        List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
        assertThat(looks).allSatisfy(look -> {
            assertThat(look.free()).as("shard %d left", look.shard()).isZero();
            assertThat(look.escrow()).isEmpty();
        });
        assertThat(looks.stream().mapToLong(ShardTransfers.Look::admitted).sum())
                .isEqualTo(total);
        return calls;
    }

    @Test
    void shouldAdmitExactlyNOverSixShardsTwoToAPrimaryWithNoPrimaryDoingHalfTheWork() throws Exception {
        long coupon = 4242;
        int shards = 6;
        Map<Integer, Integer> perPrimary = new HashMap<>();
        for (String tag : stock.tags(coupon, shards)) {
            perPrimary.merge(cluster.masterOf(StockShards.stock(tag)), 1, Integer::sum);
        }
        assertThat(perPrimary.values()).containsExactlyInAnyOrder(2, 2, 2);

        // K = 6, 1, 1, 6: each order once, so that a warmer cluster or client favours neither
        StringBuilder table = new StringBuilder(PrimaryScripts.header());
        StringBuilder summary = new StringBuilder();
        int run = 0;
        for (int k : new int[] {6, 1, 1, 6}) {
            run++;
            Map<String, PrimaryScripts.Scripts> evals = crowd(coupon + run * 100_000L, k, 3_000);
            long all = evals.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::calls)
                    .sum();
            long hottest = evals.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::calls)
                    .max()
                    .orElseThrow();
            long hottestCpu = evals.values().stream()
                    .mapToLong(PrimaryScripts.Scripts::usec)
                    .max()
                    .orElseThrow();
            table.append(PrimaryScripts.rows(run, k, evals));
            summary.append(String.format(
                    Locale.ROOT,
                    "- run %d, K=%d: %.2f script calls per ask; the hottest primary %,d calls (%.1f%%), %.1f µs of"
                            + " Redis CPU per admission (of 3,000)%n",
                    run,
                    k,
                    all / 3_300.0,
                    hottest,
                    100.0 * hottest / all,
                    hottestCpu / 3_000.0));
            if (k == 1) {
                assertThat(hottest).as("one shard: one primary does it all").isEqualTo(all);
            } else {
                assertThat((double) hottest / all)
                        .as("six shards: the hottest primary's share")
                        .isLessThan(0.5);
                assertThat(all / 3_300.0).as("what the transfers cost in all").isLessThan(1.5);
            }
        }
        table.append('\n').append(summary);
        System.out.println("SHARDS\n" + table);
        java.nio.file.Files.createDirectories(java.nio.file.Path.of("target"));
        java.nio.file.Files.writeString(java.nio.file.Path.of("target", "stock-shards.md"), table);
    }

    /** The primaries of this cluster share one machine's clock: the bound across machines adds their clocks' skew. */
    @Test
    void shouldPublishEveryAdmissionOnceInAdmissionTimeOrderAcrossThePrimaries() {
        ShardDrainRun.Figures figures = ShardDrainRun.run(
                new ShardStock.Redis() {
                    @Override
                    public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
                        return Mono.fromCompletionStage(connection
                                .async()
                                .<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args));
                    }
                },
                4444,
                6,
                2_000,
                2_200);
        System.out.printf(
                Locale.ROOT,
                "SHARDS order: %d published, %d time inversions, worst inversion %.3f ms (<= 0: none), %d positions"
                        + " wrong%n",
                figures.published(),
                figures.timeInversions(),
                figures.worstInversionMillis(),
                figures.positionsWrong());
        assertThat(figures.published()).isEqualTo(2_000);
        assertThat(figures.timeInversions()).isZero();
        assertThat(figures.worstInversionMillis()).isLessThanOrEqualTo(0);
        assertThat(figures.positionsWrong()).isZero();
    }
}
