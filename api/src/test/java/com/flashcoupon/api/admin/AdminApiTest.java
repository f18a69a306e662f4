package com.flashcoupon.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;

/** The operators' endpoints (docs/http-api.md, Admin endpoints) and how they refuse bad input without writing anything. */
@ApiTest
class AdminApiTest extends ApiTestBase {

    /** A day after the test's start, in whole seconds (as the api stores windows): always in the future. */
    private static final String OPEN_AT = Instant.now()
            .plus(1, ChronoUnit.DAYS)
            .truncatedTo(ChronoUnit.SECONDS)
            .toString();

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private long couponRows() {
        return jdbc.sql("SELECT COUNT(*) FROM coupon").query(Long.class).single();
    }

    /**
     * The coupon ids that have keys in Redis. Not the keys themselves: the drainer, the gauges and the retirement job
     * of the shared test context take and give leases and write the state of other tests' events at any moment.
     */
    private Set<Long> couponsInRedis() {
        return redis.keys("*").stream()
                .map(COUPON_TAG::matcher)
                .filter(Matcher::find)
                .map(found -> Long.parseLong(found.group(1)))
                .collect(Collectors.toSet());
    }

    private static final Pattern COUPON_TAG = Pattern.compile("^\\{cpn:(\\d+)}");

    @Nested
    class Creating {

        @Test
        void shouldAnswer201WithLocationAndTheCouponWhenValid() {
            client().post()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of(
                            "name", "Black Friday 5,000 won",
                            "totalQuantity", 10000,
                            "openAt", OPEN_AT,
                            "issueRatePerSecond", 500,
                            "validDays", 30))
                    .exchange()
                    .expectStatus()
                    .isCreated()
                    .expectHeader()
                    .valueMatches("Location", "/admin/v1/coupons/\\d+")
                    .expectBody()
                    .jsonPath("$.name")
                    .isEqualTo("Black Friday 5,000 won")
                    .jsonPath("$.totalQuantity")
                    .isEqualTo(10000)
                    .jsonPath("$.remainingQuantity")
                    .isEqualTo(10000)
                    .jsonPath("$.openAt")
                    .isEqualTo(OPEN_AT)
                    .jsonPath("$.closeAt")
                    .isEmpty()
                    .jsonPath("$.status")
                    .isEqualTo("SCHEDULED")
                    .jsonPath("$.issueRatePerSecond")
                    .isEqualTo(500)
                    .jsonPath("$.stats.admitted")
                    .isEqualTo(0)
                    .jsonPath("$.stats.deadLettered")
                    .isEqualTo(0);
        }

        @Test
        void shouldShowLiveCountersWhenMembersHaveAsked() {
            long id = createCoupon(2, 1);
            requestCoupon(id, "a").expectStatus().isAccepted();
            requestCoupon(id, "b").expectStatus().isAccepted();
            requestCoupon(id, "c").expectStatus().isEqualTo(409);

            client().get()
                    .uri("/admin/v1/coupons/{id}", id)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("SOLD_OUT")
                    .jsonPath("$.stats.admitted")
                    .isEqualTo(2)
                    .jsonPath("$.stats.rejectedSoldOut")
                    .isEqualTo(1)
                    .jsonPath("$.remainingQuantity")
                    .isEqualTo(0);
        }

        @Test
        void shouldListCouponsNewestFirst() {
            long older = createCoupon(1, 1);
            long newer = createCoupon(1, 1);

            List<?> ids = client()
                    .get()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(List.class)
                    .returnResult()
                    .getResponseBody()
                    .stream()
                    .map(coupon -> ((Map<?, ?>) coupon).get("id"))
                    .map(id -> ((Number) id).longValue())
                    .toList();
            assertThat(ids.indexOf(newer)).isLessThan(ids.indexOf(older));
        }
    }

    @Nested
    class Changing {

        @Test
        void shouldChangeCloseAtWhenPatched() {
            long id = createCoupon(5, 1);
            String closeAt = Instant.now()
                    .plus(1, ChronoUnit.HOURS)
                    .truncatedTo(ChronoUnit.SECONDS)
                    .toString();

            client().patch()
                    .uri("/admin/v1/coupons/{id}", id)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("closeAt", closeAt))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.closeAt")
                    .isEqualTo(closeAt)
                    .jsonPath("$.status")
                    .isEqualTo("OPEN");
        }

        @Test
        void shouldAnswer404WhenPatchingUnknownCoupon() {
            client().patch()
                    .uri("/admin/v1/coupons/{id}", 999_999_999)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("issueRatePerSecond", 10))
                    .exchange()
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("COUPON_NOT_FOUND");
        }
    }

    /**
     * Bad input through the whole app writes nothing to MySQL or Redis (the status and problem of every case are in
     * {@link AdminWebTest}, which sees that the service is never called).
     */
    @Test
    void shouldWriteNothingWhenCreateIsInvalid() {
        long rows = couponRows();
        long lastId = jdbc.sql("SELECT COALESCE(MAX(id), 0) FROM coupon")
                .query(Long.class)
                .single();

        for (String body : List.of(
                "{\"name\":\"a\",\"totalQuantity\":0,\"openAt\":\"" + OPEN_AT + "\",\"issueRatePerSecond\":1}",
                "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT
                        + "\",\"issueRatePerSecond\":1,\"isAdmin\":true}",
                "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"1960-01-01T00:00:00Z\",\"closeAt\":"
                        + "\"1965-01-01T00:00:00Z\",\"issueRatePerSecond\":1}",
                "{\"name\":\"" + "x".repeat(17 * 1024) + "\"}")) {
            client().post()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(body)
                    .exchange()
                    .expectStatus()
                    .is4xxClientError();
        }

        assertThat(couponRows()).isEqualTo(rows);
        assertThat(couponsInRedis())
                .as("no event that did not exist before has keys")
                .allMatch(id -> id <= lastId);
    }

    /** A closeAt before the coupon's stored openAt: only the service, reading MySQL, can tell. */
    @Test
    void shouldRefuseAndChangeNothingWhenPatchedCloseAtIsBeforeOpenAt() {
        long id = createCoupon(5, 7);
        client().patch()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue("{\"closeAt\":\"2000-01-01T00:00:00Z\"}")
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("INVALID_REQUEST");
        assertThat(jdbc.sql(
                                "SELECT CONCAT(issue_rate_per_second, '|', COALESCE(close_at, '-')) FROM coupon WHERE id = ?")
                        .param(id)
                        .query(String.class)
                        .single())
                .isEqualTo("7|-");
    }
}
