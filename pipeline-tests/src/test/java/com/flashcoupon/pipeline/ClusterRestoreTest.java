package com.flashcoupon.pipeline;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A Redis Cluster of three primaries (each with its replica) loses every key during a crowd (each primary flushed; the
 * replicas follow), for an event of three stock shards spread over the primaries: the api restores it from MySQL with
 * every restore script in one slot of the cluster (the members on their home shards, the lock and the meta in the
 * event's slot), and every promise of {@link RestoreScenario} holds. On the same cluster, a fair start across three
 * shards ({@link ShardedFairStartScenario}), with more stock than entrants and with fewer.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterRestoreTest {

    /** The api's drain batch as the stack runs it (its default). */
    private static final int DRAIN_BATCH = 1_000;

    private static PrivateRedisCluster cluster;
    private static Stack stack;
    private static io.lettuce.core.cluster.RedisClusterClient client;
    private static io.lettuce.core.cluster.api.StatefulRedisClusterConnection<String, String> connection;

    @BeforeAll
    static void start() throws Exception {
        cluster = new PrivateRedisCluster();
        Map<String, Object> api = new HashMap<>();
        api.put("coupon.redis.cluster-nodes", cluster.nodes());
        api.put("coupon.shards.max-served", 3);
        stack = new Stack(api, Map.of("coupon.redis.cluster-nodes", cluster.nodes()));
        client = cluster.client();
        connection = client.connect();
    }

    @AfterAll
    static void stop() throws Exception {
        if (connection != null) {
            connection.close();
            client.shutdown();
        }
        if (stack != null) {
            stack.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Last: it flushes every primary (the other tests' events, settled by then, are restored from MySQL). */
    @Test
    @Order(3)
    void shouldRestoreAnEventOfThreeShardsOnTheClusterAndIssueExactlyTheStock() throws Exception {
        new RestoreScenario(stack, "redis-cluster").run(3, couponId -> cluster.flushAll());
    }

    @Test
    @Order(1)
    void shouldPlaceEveryEntrantFirstAndNewcomersAfterWhenTheStockIsLarger() {
        new ShardedFairStartScenario(stack, key -> connection.sync().hgetall(key), DRAIN_BATCH).run(3, 200, 150, 80);
    }

    @Test
    @Order(2)
    void shouldGiveEveryCouponToTheDrawWhenItHasMoreEntrantsThanStock() {
        new ShardedFairStartScenario(stack, key -> connection.sync().hgetall(key), DRAIN_BATCH).run(3, 100, 150, 20);
    }
}
