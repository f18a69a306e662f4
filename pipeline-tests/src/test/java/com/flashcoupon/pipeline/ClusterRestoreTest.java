package com.flashcoupon.pipeline;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A Redis Cluster of three primaries (each with its replica) loses every key during a crowd (each primary flushed; the
 * replicas follow), for an event of three stock shards spread over the primaries: the api restores it from MySQL with
 * every restore script in one slot of the cluster (the members on their home shards, the lock and the meta in the
 * event's slot), and every promise of {@link RestoreScenario} holds.
 */
class ClusterRestoreTest {

    private static PrivateRedisCluster cluster;
    private static Stack stack;

    @BeforeAll
    static void start() throws Exception {
        cluster = new PrivateRedisCluster();
        Map<String, Object> api = new HashMap<>();
        api.put("coupon.redis.cluster-nodes", cluster.nodes());
        api.put("coupon.shards.max-served", 3);
        stack = new Stack(api, Map.of("coupon.redis.cluster-nodes", cluster.nodes()));
    }

    @AfterAll
    static void stop() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void shouldRestoreAnEventOfThreeShardsOnTheClusterAndIssueExactlyTheStock() throws Exception {
        new RestoreScenario(stack, "redis-cluster").run(3, cluster::flushAll);
    }
}
