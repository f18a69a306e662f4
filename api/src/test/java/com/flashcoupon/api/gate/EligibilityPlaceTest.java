package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DefaultDataBufferFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * A member who holds a place (queued, in the draw, issued) is answered with it, whatever their claims or the list say
 * now: the gate decides who may take a place, not who keeps one. And the list no longer changes once the event is
 * open, even for an upload that began before: the switch to it checks the open time again, by MySQL's clock.
 */
@ApiTest
class EligibilityPlaceTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private WebTestClient.ResponseSpec ask(long id, String token) {
        return client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + token)
                .exchange();
    }

    private WebTestClient.ResponseSpec status(long id, String token) {
        return client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + token)
                .exchange();
    }

    private long open(int quantity, Map<String, Object> gate) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "name",
                "Members only",
                "totalQuantity",
                quantity,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30));
        body.putAll(gate);
        return createCoupon(body);
    }

    @Test
    void shouldAnswerAQueuedMemberWithTheirPlaceWhenTheirClaimChanged() {
        long id = open(10, Map.of("eligibility", Map.of("claims", Map.of("tier", List.of("GOLD")))));
        String gold = EligibilityApiTest.token("n2-claims", Map.of("tier", "GOLD"));
        String silver = EligibilityApiTest.token("n2-claims", Map.of("tier", "SILVER"));

        ask(id, gold).expectStatus().isAccepted();
        ask(id, silver).expectStatus().isOk().expectBody().jsonPath("$.status").isEqualTo("WAITING");
        status(id, silver)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("WAITING");

        // a member without a place is still refused, and counted
        expectProblem(ask(id, EligibilityApiTest.token("n2-other", Map.of("tier", "SILVER"))), 403, "NOT_ELIGIBLE");
        assertThat(redis.opsForZSet().range(CouponKeys.queue(id), 0, -1)).containsExactly("n2-claims");
        assertThat(redis.opsForHash().get(CouponKeys.stats(id), "refusedClaims"))
                .isEqualTo("1");
    }

    @Test
    void shouldAnswerAQueuedMemberWithTheirPlaceWhenTheListNoLongerHoldsThem() {
        long id = open(10, Map.of("eligibility", Map.of("list", true)));
        // the list as an upload that ended after openAt left it once: the admitted member no longer on it
        jdbc.sql("UPDATE coupon_gate SET list_generation = 1, next_generation = 1, list_count = 2 WHERE coupon_id = ?")
                .param(id)
                .update();
        jdbc.sql("INSERT INTO coupon_eligible_member (coupon_id, generation, member_id)"
                        + " VALUES (?, 1, 'n2-listed'), (?, 1, 'n2-other')")
                .params(id, id)
                .update();
        jdbc.sql("UPDATE coupon SET version = version + 1 WHERE id = ?")
                .param(id)
                .update();
        redis.delete(CouponKeys.meta(id));

        ask(id, Tokens.member("n2-listed")).expectStatus().isAccepted();
        redis.opsForSet().remove(CouponKeys.eligible(id), "n2-listed");

        ask(id, Tokens.member("n2-listed"))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("WAITING");
        expectProblem(ask(id, Tokens.member("n2-stranger")), 403, "NOT_ELIGIBLE");
    }

    @Test
    void shouldAnswerADrawEntrantWithTheDrawWhenTheirClaimChanged() {
        long id = createCoupon(Map.of(
                "name",
                "Fair start for members",
                "totalQuantity",
                5,
                "openAt",
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1000,
                "queueing",
                "RANDOMIZED_START",
                "queueingWindowSeconds",
                3600,
                "eligibility",
                Map.of("claims", Map.of("tier", List.of("GOLD")))));

        ask(id, EligibilityApiTest.token("n2-entrant", Map.of("tier", "GOLD")))
                .expectStatus()
                .isAccepted();
        ask(id, EligibilityApiTest.token("n2-entrant", Map.of("tier", "SILVER")))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.draw.state")
                .isEqualTo("OPEN");
        expectProblem(ask(id, EligibilityApiTest.token("n2-late", Map.of("tier", "SILVER"))), 403, "NOT_ELIGIBLE");
        assertThat(redis.opsForZSet().range(CouponKeys.draw(id), 0, -1)).containsExactly("n2-entrant");
    }

    /**
     * An upload checked against openAt when it began, whose body was still arriving when the event opened: it is
     * refused at its switch (409 ALREADY_OPEN) and the list stays as it was, in MySQL and in Redis.
     */
    @Test
    void shouldRefuseToSwitchTheListOfAnUploadThatEndedAfterTheEventOpened() throws Exception {
        long id = createCoupon(listedEventInAnHour());
        client().put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("before-1\nbefore-2\n")
                .exchange()
                .expectStatus()
                .isOk();
        long generation = listGeneration(id);

        var factory = DefaultDataBufferFactory.sharedInstance;
        Sinks.One<DataBuffer> rest = Sinks.one();
        Flux<DataBuffer> slow =
                Flux.concat(Mono.just(factory.wrap("after-1\n".getBytes(StandardCharsets.US_ASCII))), rest.asMono());
        CompletableFuture<WebTestClient.ResponseSpec> answer = CompletableFuture.supplyAsync(() -> client().put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .body(slow, DataBuffer.class)
                .exchange());

        // the api took the upload (it checked openAt, then began to spool the body to a file of its own) ...
        await().atMost(Duration.ofSeconds(30)).until(() -> spooling(id));
        // ... and the event opens (by MySQL's clock) before the body ends
        jdbc.sql("UPDATE coupon SET open_at = NOW(3) - INTERVAL 1 SECOND, version = version + 1 WHERE id = ?")
                .param(id)
                .update();
        rest.tryEmitValue(factory.wrap("after-2\n".getBytes(StandardCharsets.US_ASCII)));

        expectProblem(answer.get(60, TimeUnit.SECONDS), 409, "ALREADY_OPEN");
        assertThat(listGeneration(id)).as("the list's upload in MySQL").isEqualTo(generation);
        assertThat(redis.opsForSet().members(CouponKeys.eligible(id)))
                .containsExactlyInAnyOrder("before-1", "before-2");
    }

    private long listGeneration(long id) {
        return jdbc.sql("SELECT list_generation FROM coupon_gate WHERE coupon_id = ?")
                .param(id)
                .query(Long.class)
                .single();
    }

    /** Whether the api is spooling an upload of the event's list (its temporary file exists). */
    private static boolean spooling(long id) {
        try (var files = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return files.anyMatch(file -> file.getFileName().toString().startsWith("eligible-" + id + "-"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
