package com.flashcoupon.pipeline;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Not in the suite (its name does not end in Test): a known failure case of stock shards, kept runnable until it is
 * fixed (docs/architecture.md, "Known failure cases of K > 1"). On a Redis Cluster of three primaries, each with its
 * replica, the primary of an event's shard 1 and its replica lose every key mid-issuance (the worker stopped, so
 * published requests wait undecided), shards 0 and 2 keeping theirs. Shard 1 is dealt again from what the others hold
 * and what it had published, and newcomers are asked until the stock is taken. Every other promise of {@link
 * RestoreScenario} held in its first run (2026-11-29: 0 duplicates, 0 over-issue, every member MySQL knows answered
 * 200), but exactly the stock was not issued: 589 of 600, 11 coupons stranded (the shards that kept theirs were still
 * marked sold out; a deal of a shard lost alone now takes the marks away). Run since: 600 of 600, the crowd taking the
 * freed stock itself. Run: {@code bin/test -pl pipeline-tests -am -Dtest=ShardLostAloneClusterCheck}.
 */
class ShardLostAloneClusterCheck {

    private static PrivateRedisCluster cluster;
    private static Stack stack;

    @BeforeAll
    static void start() throws Exception {
        cluster = new PrivateRedisCluster();
        Map<String, Object> api = new HashMap<>();
        api.put("coupon.redis.cluster-nodes", cluster.nodes());
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
    void shouldDealAShardLostAloneWithItsPrimaryItsStockBackAndIssueExactlyTheStock() throws Exception {
        new RestoreScenario(stack, "redis-cluster-shard")
                .run(
                        3,
                        couponId -> cluster.flushMasterOf(com.flashcoupon.contract.StockShards.tag(couponId, 3, 1)),
                        false);
    }
}
