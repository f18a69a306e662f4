package com.flashcoupon.api.shard;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.StockShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The tests of the shard scripts against the test Redis ({@code COUPON_TEST_REDIS_URL}): one Lettuce connection per
 * class, its plain commands, and a {@link ShardStock} on it, as the api runs them but without Spring.
 */
abstract class ShardRedisTestBase {

    static RedisClient client;
    static StatefulRedisConnection<String, String> connection;
    static RedisCommands<String, String> sync;
    static ShardStock stock;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestEnvironment.REDIS_URL);
        connection = client.connect();
        sync = connection.sync();
        stock = new ShardStock(new LettuceShardRedis(connection.async()));
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    /** A new member id whose home is {@code shard} of an event of {@code shards} stock shards. */
    static String homedAt(int shards, int shard) {
        while (true) {
            String member = "home-" + UUID.randomUUID();
            if (StockShards.home(member, shards) == shard) {
                return member;
            }
        }
    }
}
