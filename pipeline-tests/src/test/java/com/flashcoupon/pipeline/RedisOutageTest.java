package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Redis killed during a crowd and started again: every answer is one the contract allows (never a 500, never a false
 * 202), readiness goes down and comes back by itself, and every accepted member ends with a wallet.
 */
class RedisOutageTest {

    private static PrivateRedis redis;
    private static Stack stack;
    private static WebTestClient http;

    @BeforeAll
    static void start() throws Exception {
        redis = new PrivateRedis();
        Map<String, Object> onPrivateRedis = Map.of("spring.data.redis.url", redis.url());
        stack = new Stack(onPrivateRedis, onPrivateRedis);
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

    @Test
    void shouldFailClosedAndLoseNothingWhenRedisDiesDuringACrowd() throws Exception {
        long couponId = stack.createCoupon("Outage", 400, 2_000);
        List<String> members = Crowd.members("outage", 3_000);

        CompletableFuture<List<Crowd.Answer>> crowd =
                CompletableFuture.supplyAsync(() -> Crowd.ask(stack.apiUrl(), couponId, members, 300, 32));
        await().atMost(Duration.ofSeconds(30)).until(() -> stack.walletCount(couponId) > 0 || crowd.isDone());
        redis.kill();
        http.get().uri("/actuator/health/readiness").exchange().expectStatus().isEqualTo(503);
        http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + Stack.token("during-outage", List.of()))
                .exchange()
                .expectStatus()
                .isEqualTo(503)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("UNAVAILABLE");
        Thread.sleep(1_500);
        redis.start();

        List<Crowd.Answer> answers = crowd.get();
        Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
        assertThat(byStatus.keySet()).isSubsetOf(200, 202, 409, 429, 503);
        assertThat(byStatus).as("the outage overlapped the crowd").containsKey(503);
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> http.get()
                        .uri("/actuator/health/readiness")
                        .exchange()
                        .expectStatus()
                        .isOk());

        // A 503 means "not confirmed": a request whose reply was lost with Redis may still have been admitted.
        // Asking again tells the member either way (200: admitted before), which counts as being told "accepted".
        Set<String> accepted = answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toCollection(HashSet::new));
        Set<String> unconfirmed = answers.stream()
                .filter(answer -> answer.status() == 503)
                .map(Crowd.Answer::memberId)
                .filter(member -> !accepted.contains(member))
                .collect(Collectors.toSet());
        for (String member : unconfirmed) {
            int status = http.post()
                    .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                    .header("Authorization", "Bearer " + Stack.token(member, List.of()))
                    .exchange()
                    .returnResult(String.class)
                    .getStatus()
                    .value();
            assertThat(status).isIn(200, 202, 409);
            if (status == 200 || status == 202) {
                accepted.add(member);
            }
        }
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) >= accepted.size());
        Invariants.check(stack.jdbc, couponId, accepted, 1_000);
        assertThat(stack.walletCount(couponId)).isEqualTo(accepted.size());
    }
}
