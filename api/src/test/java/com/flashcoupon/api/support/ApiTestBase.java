package com.flashcoupon.api.support;

import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.http.MediaType;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Wiring and small helpers for {@link ApiTest} classes. */
public abstract class ApiTestBase {

    @Autowired
    protected WebTestClient http;

    @Autowired
    protected JdbcClient jdbc;

    @DynamicPropertySource
    static void servers(DynamicPropertyRegistry registry) {
        TestEnvironment.register(registry);
    }

    protected static TestDatabase database() {
        return TestEnvironment.database();
    }

    protected WebTestClient client() {
        return http.mutate().responseTimeout(Duration.ofSeconds(30)).build();
    }

    /** The {@code paths} of the generated OpenAPI document ({@code /v3/api-docs}, no token needed). */
    protected JsonNode openApiPaths() {
        return JsonMapper.builder().build().readTree(publicText("/v3/api-docs")).path("paths");
    }

    /** The body of a GET that needs no token, expected to answer 200. */
    protected String publicText(String uri, Object... variables) {
        return client().get()
                .uri(uri, variables)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
    }

    /** Creates an open coupon through the admin API and returns its id. */
    protected long createCoupon(int quantity, int ratePerSecond) {
        return createCoupon(Map.of(
                "name",
                "Test coupon",
                "totalQuantity",
                quantity,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                ratePerSecond,
                "validDays",
                30));
    }

    /**
     * The body of an event of 10 coupons for the members of its list, opening in an hour (so the list can still be
     * uploaded); a map the test may add to.
     */
    protected static Map<String, Object> listedEventInAnHour() {
        return new HashMap<>(Map.of(
                "name",
                "Members only",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30,
                "eligibility",
                Map.of("list", true)));
    }

    protected long createCoupon(Map<String, Object> body) {
        Number id = postCoupon(body)
                                .expectStatus()
                                .isCreated()
                                .expectBody(Map.class)
                                .returnResult()
                                .getResponseBody()
                                .get("id")
                        instanceof Number n
                ? n
                : null;
        return id.longValue();
    }

    /** {@code POST /admin/v1/coupons} with this body, as an operator: the answer, whatever it is. */
    protected WebTestClient.ResponseSpec postCoupon(Map<String, Object> body) {
        return client().post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    /** {@code PATCH /admin/v1/coupons/{id}} with this JSON body, as an operator: the answer, whatever it is. */
    protected WebTestClient.ResponseSpec patchCoupon(long id, String body) {
        return client().patch()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    /** Expects a problem answer: the status and the contract's {@code code}. */
    protected static WebTestClient.BodyContentSpec expectProblem(
            WebTestClient.ResponseSpec response, int status, String code) {
        return response.expectStatus()
                .isEqualTo(status)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo(code);
    }

    protected WebTestClient.ResponseSpec requestCoupon(long couponId, String memberId) {
        return client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .exchange();
    }

    /** {@code GET} an admin path as an operator, expecting 200: the answer's JSON object. */
    protected Map<?, ?> adminGet(String uri, Object... variables) {
        return client().get()
                .uri(uri, variables)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    /** A new member id whose home is {@code shard} of an event of {@code shards} stock shards. */
    protected static String homedAt(int shards, int shard) {
        while (true) {
            String member = "m-" + UUID.randomUUID();
            if (StockShards.home(member, shards) == shard) {
                return member;
            }
        }
    }

    /** The places in every shard's queue of an event of {@code shards} stock shards, as Redis holds them. */
    protected static long placedOnShards(long couponId, int shards) {
        long sum = 0;
        for (int shard = 0; shard < shards; shard++) {
            Long queued = TestEnvironment.redis()
                    .opsForZSet()
                    .zCard(StockShards.queue(StockShards.tag(couponId, shards, shard)));
            sum += queued == null ? 0 : queued;
        }
        return sum;
    }

    /** A wallet written into MySQL as the worker writes it, with the event's issued count; returns its id. */
    protected long issuedInMySql(long couponId, String member, long sequence) {
        jdbc.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                        + " VALUES (?, ?, ?, NOW(3), NOW(3) + INTERVAL 30 DAY)")
                .params(couponId, member, sequence)
                .update();
        jdbc.sql("UPDATE coupon SET issued_count = issued_count + 1 WHERE id = ?")
                .param(couponId)
                .update();
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, member)
                .query(Long.class)
                .single();
    }

    /** The event's published and admitted-seen counts in MySQL, as the drainer records them. */
    protected void publishedInMySql(long couponId, long published, long admittedSeen) {
        jdbc.sql("UPDATE coupon SET published_count = ?, admitted_seen_count = ? WHERE id = ?")
                .params(published, admittedSeen, couponId)
                .update();
    }
}
