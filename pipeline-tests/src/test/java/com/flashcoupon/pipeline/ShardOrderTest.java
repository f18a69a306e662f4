package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.ShardStock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * First come across shards on one Redis (docs/architecture.md, "Stock shards"; {@link ShardStockClusterTest} runs the
 * same on a cluster): a crowd admitted over six shards while a drainer publishes, every admission published once, in
 * admission-time order, never one published before a member whose admission was answered before it was even asked,
 * and each member's position counting the members admitted before them on every shard.
 */
class ShardOrderTest {

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(Stack.REDIS_URL);
        connection = client.connect();
    }

    @AfterAll
    static void close() {
        connection.close();
        client.shutdown();
    }

    @Test
    void shouldPublishEveryAdmissionOnceInAdmissionTimeOrderWhileTheCrowdIsAdmitted() {
        ShardStock.Redis redis = new ShardStock.Redis() {
            @Override
            public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
                return Mono.fromCompletionStage(
                        connection.async().<List<Object>>eval(script.text(), ScriptOutputType.MULTI, keys, args));
            }
        };
        long coupon = 8_000_000_000L + ThreadLocalRandom.current().nextLong(1_000_000_000L);
        ShardDrainRun.Figures figures = ShardDrainRun.run(redis, coupon, 6, 2_000, 2_200);
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
