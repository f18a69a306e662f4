package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * First come across shards on a real Redis (docs/architecture.md, "Stock shards"): a crowd admitted over six shards
 * while a drainer publishes, every admission published once, in admission-time order, never one published before a
 * member whose admission was answered before it was even asked, and each member's position counting the members
 * admitted before them on every shard.
 */
class ShardOrderTest {

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestEnvironment.REDIS_URL);
        connection = client.connect();
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    @Test
    void shouldPublishEveryAdmissionOnceInAdmissionTimeOrderWhileTheCrowdIsAdmitted() {
        var redis = new LettuceShardRedis(connection.async());
        ShardDrainRun.Figures figures = ShardDrainRun.run(redis, ShardStockTest.newCoupon(), 6, 2_000, 2_200);
        assertThat(figures.published()).isEqualTo(2_000);
        assertThat(figures.timeInversions())
                .as("published out of the primaries' time order")
                .isZero();
        assertThat(figures.worstInversionMillis())
                .as("a member published before one answered before they asked")
                .isLessThanOrEqualTo(0);
        assertThat(figures.positionsWrong()).isZero();
    }
}
