package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.api.shard.ShardTransfers;
import com.flashcoupon.contract.StockShards;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.util.Arrays;
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
        client = RedisClusterClient.create(Arrays.stream(cluster.nodes().split(","))
                .map(node -> RedisURI.create("redis://" + node))
                .toList());
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

    private static List<RedisClusterNode> primaries() {
        connection.getPartitions().updateCache();
        return connection.getPartitions().stream()
                .filter(node -> node.is(RedisClusterNode.NodeFlag.UPSTREAM))
                .toList();
    }

    /** Each primary's EVAL calls since the last reset, from its INFO commandstats. */
    private static Map<String, Long> evalCalls(boolean reset) {
        Map<String, Long> calls = new HashMap<>();
        for (RedisClusterNode primary : primaries()) {
            var node = connection
                    .getConnection(primary.getUri().getHost(), primary.getUri().getPort())
                    .sync();
            String stats = node.info("commandstats");
            long evals = stats.lines()
                    .filter(line -> line.startsWith("cmdstat_eval:"))
                    .mapToLong(line -> Long.parseLong(line.replaceAll("^cmdstat_eval:calls=(\\d+),.*", "$1")
                            .strip()))
                    .sum();
            calls.put(primary.getUri().getHost() + ":" + primary.getUri().getPort(), evals);
            if (reset) {
                node.configResetstat();
            }
        }
        return calls;
    }

    private static Map<String, Long> crowd(long coupon, int shards, int total) {
        stock.init(coupon, shards, total).block();
        evalCalls(true);
        List<String> crowd = IntStream.range(0, total + total / 10)
                .mapToObj(i -> "m-" + i + "-" + UUID.randomUUID())
                .toList();
        Map<ShardStock.Outcome, Long> answers = Flux.fromIterable(crowd)
                .flatMap(member -> stock.admit(coupon, shards, member), 64)
                .collect(Collectors.groupingBy(ShardStock.Result::outcome, Collectors.counting()))
                .block();
        Map<String, Long> calls = evalCalls(false);
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

        Map<String, Long> sharded = crowd(coupon, shards, 3_000);
        Map<String, Long> single = crowd(4343, 1, 3_000);

        long shardedAll = sharded.values().stream().mapToLong(Long::longValue).sum();
        long shardedMax =
                sharded.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        long singleAll = single.values().stream().mapToLong(Long::longValue).sum();
        long singleMax =
                single.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        System.out.printf(
                Locale.ROOT,
                "SHARDS 3,300 askers for 3,000 coupons: K=6 script calls per primary %s (%.2f per ask), hottest %.1f%%;"
                        + " K=1 %s (%.2f per ask), hottest %.1f%%; the hottest primary's calls K=6 / K=1: %.2f%n",
                sharded.values(),
                shardedAll / 3_300.0,
                100.0 * shardedMax / shardedAll,
                single.values(),
                singleAll / 3_300.0,
                100.0 * singleMax / singleAll,
                (double) shardedMax / singleMax);
        assertThat((double) singleMax / singleAll)
                .as("one shard: one primary does it all")
                .isEqualTo(1.0);
        assertThat((double) shardedMax / shardedAll)
                .as("six shards: the hottest primary's share")
                .isLessThan(0.5);
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
