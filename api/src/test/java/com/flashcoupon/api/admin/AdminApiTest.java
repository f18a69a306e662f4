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
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;

/** The operators' endpoints (docs/http-api.md, Admin endpoints) and how they refuse bad input without writing anything. */
@ApiTest
class AdminApiTest extends ApiTestBase {

    private static final String OPEN_AT = "2026-11-27T00:00:00Z";

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private long couponRows() {
        return jdbc.sql("SELECT COUNT(*) FROM coupon").query(Long.class).single();
    }

    private Set<String> redisKeys() {
        return redis.keys("*");
    }

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

    @Nested
    class Authentication {

        @Test
        void shouldAnswer401WithoutToken() {
            long before = couponRows();
            client().post()
                    .uri("/admin/v1/coupons")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of("name", "x"))
                    .exchange()
                    .expectStatus()
                    .isUnauthorized()
                    .expectHeader()
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("UNAUTHORIZED");
            assertThat(couponRows()).isEqualTo(before);
        }

        @Test
        void shouldAnswer403WhenAMemberCallsAnAdminEndpoint() {
            client().get()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("m-1"))
                    .exchange()
                    .expectStatus()
                    .isForbidden()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("FORBIDDEN");
        }

        @Test
        void shouldAnswer401WhenTokenIsExpiredOrWronglySigned() {
            String expired =
                    TestEnvironment.token("m-1", List.of(), Instant.now().minus(1, ChronoUnit.HOURS));
            String forged = TestEnvironment.sign(
                    "another-secret-that-is-long-enough-0123456789",
                    "m-1",
                    List.of(),
                    Instant.now().plusSeconds(600));
            String badSubject =
                    TestEnvironment.token("has space", List.of(), Instant.now().plusSeconds(600));
            for (String token : List.of(expired, forged, badSubject, "not.a.jwt")) {
                client().get()
                        .uri("/api/v1/coupons/1")
                        .header("Authorization", "Bearer " + token)
                        .exchange()
                        .expectStatus()
                        .isUnauthorized()
                        .expectBody()
                        .jsonPath("$.code")
                        .isEqualTo("UNAUTHORIZED");
            }
        }

        @Test
        void shouldServeHealthWithoutToken() {
            client().get().uri("/actuator/health").exchange().expectStatus().isOk();
        }
    }

    static Stream<Arguments> badCreates() {
        return Stream.of(
                Arguments.of("malformed JSON", "{\"name\": ", "INVALID_REQUEST", 400),
                Arguments.of("not an object", "[1,2]", "INVALID_REQUEST", 400),
                Arguments.of("empty object", "{}", "INVALID_REQUEST", 400),
                Arguments.of(
                        "missing name",
                        "{\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT + "\",\"issueRatePerSecond\":1}",
                        "INVALID_REQUEST",
                        400),
                Arguments.of("blank name", body("\"  \"", "10", "10"), "INVALID_REQUEST", 400),
                Arguments.of("name over 100", body("\"" + "x".repeat(101) + "\"", "10", "10"), "INVALID_REQUEST", 400),
                Arguments.of("zero quantity", body("\"a\"", "0", "10"), "INVALID_REQUEST", 400),
                Arguments.of("negative quantity", body("\"a\"", "-1", "10"), "INVALID_REQUEST", 400),
                Arguments.of("quantity over ten million", body("\"a\"", "10000001", "10"), "INVALID_REQUEST", 400),
                Arguments.of("huge quantity", body("\"a\"", "99999999999999999999", "10"), "INVALID_REQUEST", 400),
                Arguments.of("quantity as string", body("\"a\"", "\"10\"", "10"), "INVALID_REQUEST", 400),
                Arguments.of("fractional quantity", body("\"a\"", "10.5", "10"), "INVALID_REQUEST", 400),
                Arguments.of("rate zero", body("\"a\"", "10", "0"), "INVALID_REQUEST", 400),
                Arguments.of("rate over 100,000", body("\"a\"", "10", "100001"), "INVALID_REQUEST", 400),
                Arguments.of(
                        "closeAt before openAt",
                        "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT
                                + "\",\"closeAt\":\"2026-11-26T00:00:00Z\",\"issueRatePerSecond\":1}",
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "openAt before DATETIME's range", window("0999-12-31T00:00:00Z", null), "INVALID_REQUEST", 400),
                Arguments.of(
                        "openAt after DATETIME's range",
                        window("+10000-01-01T00:00:00Z", null),
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "closeAt after DATETIME's range",
                        window(OPEN_AT, "+10000-01-01T00:00:00Z"),
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "window before 1970",
                        window("1960-01-01T00:00:00Z", "1965-01-01T00:00:00Z"),
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "openAt not a time",
                        "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"tomorrow\",\"issueRatePerSecond\":1}",
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "unknown field",
                        "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT
                                + "\",\"issueRatePerSecond\":1,\"isAdmin\":true}",
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "oversized body", "{\"name\":\"" + "x".repeat(17 * 1024) + "\"}", "PAYLOAD_TOO_LARGE", 413));
    }

    private static String window(String openAt, String closeAt) {
        return "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + openAt + "\""
                + (closeAt == null ? "" : ",\"closeAt\":\"" + closeAt + "\"") + ",\"issueRatePerSecond\":1}";
    }

    static Stream<Arguments> invalidFields() {
        return Stream.of(
                Arguments.of(
                        "empty name, no stock, no rate",
                        body("\"\"", "0", "0"),
                        List.of("issueRatePerSecond", "name", "totalQuantity")),
                Arguments.of("openAt in year 999", window("0999-12-31T00:00:00Z", null), List.of("openAt")),
                Arguments.of("openAt in year 10000", window("+10000-01-01T00:00:00Z", null), List.of("openAt")),
                Arguments.of("closeAt in year 10000", window(OPEN_AT, "+10000-01-01T00:00:00Z"), List.of("closeAt")),
                Arguments.of(
                        "window before 1970",
                        window("1960-01-01T00:00:00Z", "1965-01-01T00:00:00Z"),
                        List.of("closeAt", "openAt")));
    }

    private static String body(String name, String quantity, String rate) {
        return "{\"name\":" + name + ",\"totalQuantity\":" + quantity + ",\"openAt\":\"" + OPEN_AT
                + "\",\"issueRatePerSecond\":" + rate + "}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCreates")
    void shouldRefuseAndWriteNothingWhenCreateIsInvalid(String label, String body, String code, int status) {
        long rows = couponRows();
        Set<String> keys = redisKeys();

        client().post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isEqualTo(status)
                .expectHeader()
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo(code)
                .jsonPath("$.status")
                .isEqualTo(status)
                .jsonPath("$.title")
                .exists()
                .jsonPath("$.detail")
                .exists();

        assertThat(couponRows()).isEqualTo(rows);
        assertThat(redisKeys()).isEqualTo(keys);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidFields")
    @SuppressWarnings("unchecked")
    void shouldNameEachInvalidFieldWhenValidationFails(String label, String body, List<String> invalid) {
        client().post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.errors[*].field")
                .value(fields -> assertThat((List<Object>) fields).containsExactlyInAnyOrderElementsOf(invalid));
    }

    @Test
    void shouldRefuseAndChangeNothingWhenPatchIsInvalid() {
        long id = createCoupon(5, 7);
        for (String body : List.of(
                "{}",
                "{\"issueRatePerSecond\":0}",
                "{\"issueRatePerSecond\":\"fast\"}",
                "{\"closeAt\":\"2000-01-01T00:00:00Z\"}",
                "{\"closeAt\":\"+10000-01-01T00:00:00Z\"}",
                "{\"rate\":5}")) {
            client().patch()
                    .uri("/admin/v1/coupons/{id}", id)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(body)
                    .exchange()
                    .expectStatus()
                    .isBadRequest()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("INVALID_REQUEST");
        }
        assertThat(jdbc.sql("SELECT issue_rate_per_second FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Integer.class)
                        .single())
                .isEqualTo(7);
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon WHERE id = ? AND close_at IS NULL")
                        .param(id)
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    @Test
    void shouldAnswer405And415AsProblems() {
        client().method(HttpMethod.DELETE)
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isEqualTo(405)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("METHOD_NOT_ALLOWED");
        client().post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("name=x")
                .exchange()
                .expectStatus()
                .isEqualTo(415)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("UNSUPPORTED_MEDIA_TYPE");
    }
}
