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
 * 202), the backends health group goes down and comes back by itself while readiness stays up, an admission that needs Redis during the outage is refused with
 * 503 {@code UNAVAILABLE}, and every accepted member ends with a wallet.
 *
 * <p>The test, not the machine's speed, decides when Redis dies: the crowd pauses after {@link #BEFORE_OUTAGE}
 * answers, well short of the stock (so no answer can come from the api's local sold-out refusal, which rightly needs
 * no Redis), Redis is killed while the pipeline is issuing, the crowd's remaining requests all meet the dead Redis,
 * and Redis starts again once they were answered.
 */
class RedisOutageTest {

    private static final int STOCK = 400;

    /** Answers before Redis dies: fewer admissions than the stock, so the coupon is not sold out when it does. */
    private static final int BEFORE_OUTAGE = 200;

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
        // a slow issue rate: the drain is still going when Redis dies, and goes on after it is back
        long couponId = stack.createCoupon("Outage", STOCK, 100);
        List<String> members = Crowd.members("outage", 3_000);
        Crowd.Pause pause = new Crowd.Pause(BEFORE_OUTAGE);

        CompletableFuture<List<Crowd.Answer>> crowd =
                CompletableFuture.supplyAsync(() -> Crowd.ask(stack.apiUrl(), couponId, members, 300, 32, pause));
        await().atMost(Duration.ofMinutes(2)).until(() -> pause.reached() || crowd.isDone());
        assertThat(pause.reached()).as("the crowd paused before its end").isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() -> stack.walletCount(couponId) > 0);

        redis.kill();
        http.get().uri("/actuator/health/backends").exchange().expectStatus().isEqualTo(503);
        // readiness is the instance itself: it stays in the balancer and answers the contract's 503 (issue 27)
        http.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
        // the coupon has stock left (at most BEFORE_OUTAGE admissions of STOCK): only Redis can decide, and it is gone
        http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + Stack.token("during-outage", List.of()))
                .exchange()
                .expectStatus()
                .isEqualTo(503)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("UNAVAILABLE");
        pause.resume();
        List<Crowd.Answer> answers = crowd.get();
        redis.start();

        List<Crowd.Answer> before = answers.subList(0, BEFORE_OUTAGE);
        List<Crowd.Answer> during = answers.subList(BEFORE_OUTAGE, answers.size());
        assertThat(Crowd.countByStatus(before).keySet())
                .as("before the outage, with stock left")
                .isSubsetOf(200, 202, 503);
        assertThat(during).as("the crowd's requests after Redis died").isNotEmpty();
        assertThat(Crowd.countByStatus(during).keySet())
                .as("every request that met the dead Redis is refused, none admitted")
                .containsOnly(503);
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> http.get()
                        .uri("/actuator/health/backends")
                        .exchange()
                        .expectStatus()
                        .isOk());

        // A 503 means "not confirmed": a request whose reply was lost with Redis may still have been admitted.
        // Asking again tells the member either way (200: admitted before), which counts as being told "accepted"; a
        // 503 again is the same "try again" (the api's own Redis connection may come back a moment after the backends
        // group).
        Set<String> accepted = answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toCollection(HashSet::new));
        List<Crowd.Answer> again =
                Crowd.askAgain(stack.apiUrl(), couponId, answers, Set.of(503), Duration.ofSeconds(60));
        assertThat(Crowd.countByStatus(again).keySet())
                .as("asked again after the outage")
                .isSubsetOf(200, 202, 409);
        again.stream()
                .filter(answer -> answer.status() == 200 || answer.status() == 202)
                .forEach(answer -> accepted.add(answer.memberId()));
        // every member asked until Redis decided, and Redis kept every admission (AOF, fsync always)
        assertThat(accepted).as("the whole stock went to members told so").hasSize(STOCK);

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) >= accepted.size());
        Invariants.check(stack.jdbc, couponId, accepted, 1_000);
        assertThat(stack.walletCount(couponId)).isEqualTo(accepted.size());
    }
}
