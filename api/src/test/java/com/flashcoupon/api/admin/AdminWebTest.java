package com.flashcoupon.api.admin;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.flashcoupon.api.web.ApiException;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/**
 * The admin endpoints' refusals (docs/http-api.md, Admin endpoints and Errors) in the HTTP layer alone: bad input never
 * reaches the service, and the service's not-found becomes {@code 404 COUPON_NOT_FOUND}.
 */
@WebSliceTest
@Import(AdminController.class)
class AdminWebTest extends WebSliceBase {

    /** Any whole second: the service is a mock, so these tests check the window's shape, never its distance to now. */
    private static final Instant OPENS = Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);

    private static final String OPEN_AT = OPENS.toString();

    @MockitoBean
    private CouponAdminService service;

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
                Arguments.of(
                        "name injection over 100 characters",
                        body("\"" + "<script>alert(1)</script>".repeat(5) + "\"", "1", "1"),
                        "INVALID_REQUEST",
                        400),
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
                        "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT + "\",\"closeAt\":\""
                                + OPENS.minus(1, ChronoUnit.DAYS) + "\",\"issueRatePerSecond\":1}",
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
                        "RANDOMIZED_START without a window",
                        queueing("\"RANDOMIZED_START\"", null),
                        "INVALID_REQUEST",
                        400),
                Arguments.of("a window for FIFO", queueing("\"FIFO\"", "10"), "INVALID_REQUEST", 400),
                Arguments.of("a window over an hour", queueing("\"RANDOMIZED_START\"", "3601"), "INVALID_REQUEST", 400),
                Arguments.of("a window of 0 s", queueing("\"RANDOMIZED_START\"", "0"), "INVALID_REQUEST", 400),
                Arguments.of("an unknown queueing", queueing("\"LOTTERY\"", "10"), "INVALID_REQUEST", 400),
                Arguments.of(
                        "closeAt within the window",
                        "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT + "\","
                                + "\"closeAt\":\"" + OPENS.plusSeconds(30) + "\",\"issueRatePerSecond\":1,"
                                + "\"queueing\":\"RANDOMIZED_START\",\"queueingWindowSeconds\":60}",
                        "INVALID_REQUEST",
                        400),
                Arguments.of(
                        "oversized body", "{\"name\":\"" + "x".repeat(17 * 1024) + "\"}", "PAYLOAD_TOO_LARGE", 413));
    }

    private static String queueing(String queueing, String windowSeconds) {
        return "{\"name\":\"a\",\"totalQuantity\":1,\"openAt\":\"" + OPEN_AT + "\",\"issueRatePerSecond\":1,"
                + "\"queueing\":" + queueing
                + (windowSeconds == null ? "" : ",\"queueingWindowSeconds\":" + windowSeconds) + "}";
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
                        List.of("closeAt", "openAt")),
                Arguments.of(
                        "RANDOMIZED_START without a window",
                        queueing("\"RANDOMIZED_START\"", null),
                        List.of("queueingWindowSeconds")));
    }

    private static String body(String name, String quantity, String rate) {
        return "{\"name\":" + name + ",\"totalQuantity\":" + quantity + ",\"openAt\":\"" + OPEN_AT
                + "\",\"issueRatePerSecond\":" + rate + "}";
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badCreates")
    void shouldRefuseWithoutReachingTheServiceWhenCreateIsInvalid(String label, String body, String code, int status) {
        expectProblem(send(HttpMethod.POST, "/admin/v1/coupons", MediaType.APPLICATION_JSON, body), status, code);
        verifyNoInteractions(service);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("invalidFields")
    void shouldNameEachInvalidFieldWhenValidationFails(String label, String body, List<String> invalid) {
        String problem = expectProblem(
                send(HttpMethod.POST, "/admin/v1/coupons", MediaType.APPLICATION_JSON, body), 400, "INVALID_REQUEST");
        assertThat(problem).contains("\"errors\":[");
        invalid.forEach(field -> assertThat(problem).contains("\"field\":\"" + field + "\""));
        assertThat(problem.split("\"field\":", -1)).hasSize(invalid.size() + 1);
        verifyNoInteractions(service);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{}",
                "{\"issueRatePerSecond\":0}",
                "{\"issueRatePerSecond\":\"fast\"}",
                "{\"issueRatePerSecond\":1e300}",
                "{\"closeAt\":\"+10000-01-01T00:00:00Z\"}",
                "{\"closeAt\":\"1960-01-01T00:00:00Z\"}",
                "{\"rate\":5}"
            })
    void shouldRefuseWithoutReachingTheServiceWhenPatchIsInvalid(String body) {
        expectProblem(
                send(HttpMethod.PATCH, "/admin/v1/coupons/7", MediaType.APPLICATION_JSON, body),
                400,
                "INVALID_REQUEST");
        verifyNoInteractions(service);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/admin/v1/coupons/abc/close", "/admin/v1/coupons/0/close", "/admin/v1/coupons/-3"})
    void shouldAnswer400WhenTheCouponIdIsNotAPositiveNumber(String path) {
        HttpMethod method = path.endsWith("/close") ? HttpMethod.POST : HttpMethod.GET;
        expectProblem(send(method, path, null, null), 400, "INVALID_REQUEST");
        verifyNoInteractions(service);
    }

    @Test
    void shouldAnswer404WhenTheServiceKnowsNoSuchCoupon() {
        given(service.get(anyLong())).willReturn(Mono.error(ApiException.couponNotFound(42)));
        given(service.close(anyLong())).willReturn(Mono.error(ApiException.couponNotFound(42)));
        given(service.patch(anyLong(), any())).willReturn(Mono.error(ApiException.couponNotFound(42)));

        expectProblem(send(HttpMethod.GET, "/admin/v1/coupons/42", null, null), 404, "COUPON_NOT_FOUND");
        expectProblem(send(HttpMethod.POST, "/admin/v1/coupons/42/close", null, null), 404, "COUPON_NOT_FOUND");
        expectProblem(
                send(
                        HttpMethod.PATCH,
                        "/admin/v1/coupons/42",
                        MediaType.APPLICATION_JSON,
                        "{\"issueRatePerSecond\":10}"),
                404,
                "COUPON_NOT_FOUND");
    }

    @Test
    void shouldAnswer503WhenTheServiceFindsABackendDown() {
        given(service.close(eq(42L)))
                .willReturn(
                        Mono.error(new org.springframework.dao.DataAccessResourceFailureException("no connection")));

        expectProblem(send(HttpMethod.POST, "/admin/v1/coupons/42/close", null, null), 503, "UNAVAILABLE");
    }

    @Test
    void shouldAnswer405And415AsProblems() {
        expectProblem(send(HttpMethod.DELETE, "/admin/v1/coupons", null, null), 405, "METHOD_NOT_ALLOWED");
        expectProblem(
                send(HttpMethod.POST, "/admin/v1/coupons", MediaType.TEXT_PLAIN, "name=x"),
                415,
                "UNSUPPORTED_MEDIA_TYPE");
        verifyNoInteractions(service);
    }

    private WebTestClient.ResponseSpec send(HttpMethod method, String path, MediaType type, String body) {
        return call(method, path, Tokens.admin(), type == null ? null : type.toString(), body);
    }
}
