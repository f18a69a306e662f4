package com.flashcoupon.pipeline;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Redis killed during a crowd and started EMPTY (its disk lost): the api restores the coupon from MySQL, and every
 * promise of {@link RestoreScenario} holds. For an event of one stock shard and of three.
 */
class RedisRestoreTest {

    private static PrivateRedis redis;
    private static Stack stack;
    private static WebTestClient http;

    @BeforeAll
    static void start() throws Exception {
        redis = new PrivateRedis();
        Map<String, Object> onPrivateRedis = Map.of("spring.data.redis.url", redis.url());
        stack = new Stack(Map.of("spring.data.redis.url", redis.url(), "coupon.shards.max-served", 3), onPrivateRedis);
        http = stack.http();
    }

    @AfterAll
    static void stop() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** An event of one shard, and one of three (docs/architecture.md, "Stock shards": each member on their home). */
    @ParameterizedTest(name = "{0} stock shards")
    @ValueSource(ints = {1, 3})
    void shouldAnswerEveryMemberMySqlKnowsAndCountTheRestWhenRedisComesBackEmpty(int shards) throws Exception {
        new RestoreScenario(stack, "redis").run(shards, couponId -> {
            redis.kill();
            // Redis is started again once the api saw it gone
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> http.get()
                                    .uri("/actuator/health/backends")
                                    .exchange()
                                    .returnResult(String.class)
                                    .getStatus()
                                    .value()
                            == 503);
            redis.startEmpty();
        });
    }
}
