package com.flashcoupon.api.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.WriteSnapshot;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.EntityExchangeResult;

/**
 * Bad input on every endpoint of docs/http-api.md: each answer is the expected 4xx problem with its code, carries no stack
 * trace or internal name, and no MySQL row or Redis key changed.
 */
@ApiTest
class BadInputTest extends ApiTestBase {

    private static final String MEMBER = "bad-input-member";
    private static final String JSON = MediaType.APPLICATION_JSON_VALUE;

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @LocalServerPort
    private int port;

    private static long couponId;
    private static long walletId;
    private static long othersWalletId;

    @BeforeEach
    void fixtures() {
        if (couponId != 0) {
            return;
        }
        couponId = createCoupon(10, 10);
        walletId = wallet(MEMBER);
        othersWalletId = wallet("someone-else");
    }

    private long wallet(String member) {
        jdbc.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                        + " VALUES (?, ?, 1, NOW(3), NOW(3) + INTERVAL 30 DAY)")
                .params(couponId, member)
                .update();
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, member)
                .query(Long.class)
                .single();
    }

    /** A request: method, path (placeholders W = my wallet, O = someone else's, C = coupon), body, content type. */
    record Bad(
            String label,
            HttpMethod method,
            String path,
            String contentType,
            String body,
            boolean admin,
            int status,
            String code) {

        @Override
        public String toString() {
            return label;
        }
    }

    static Stream<Arguments> requests() {
        String huge = "{\"orderId\":\"" + "x".repeat(17 * 1024) + "\"}";
        List<Bad> bad = new ArrayList<>(List.of(
                // ids in paths
                new Bad(
                        "coupon id not a number",
                        HttpMethod.POST,
                        "/api/v1/coupons/abc/issue-requests",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "coupon id zero",
                        HttpMethod.POST,
                        "/api/v1/coupons/0/issue-requests",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "coupon id negative",
                        HttpMethod.POST,
                        "/api/v1/coupons/-7/issue-requests",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "coupon id beyond 64 bits",
                        HttpMethod.POST,
                        "/api/v1/coupons/99999999999999999999/issue-requests",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "coupon id injection",
                        HttpMethod.POST,
                        "/api/v1/coupons/1%27%20OR%20%271%27%3D%271/issue-requests",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "coupon id non-ASCII",
                        HttpMethod.GET,
                        "/api/v1/coupons/%EC%BF%A0%ED%8F%B0",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "status of a bad coupon id",
                        HttpMethod.GET,
                        "/api/v1/coupons/1.5/issue-requests/me",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "events of a bad coupon id",
                        HttpMethod.GET,
                        "/api/v1/coupons/-1/issue-requests/me/events",
                        null,
                        null,
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admission with the wrong method",
                        HttpMethod.PUT,
                        "/api/v1/coupons/1/issue-requests",
                        null,
                        null,
                        false,
                        405,
                        "METHOD_NOT_ALLOWED"),
                new Bad("unknown route", HttpMethod.GET, "/api/v1/nothing-here", null, null, false, 404, "NOT_FOUND"),
                // the wallet
                new Bad(
                        "use: malformed JSON",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: truncated JSON",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": \"o-1",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: orderId a number",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": 42}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: orderId an object",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": {\"$ne\": null}}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: missing orderId",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: extra field",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": \"o-1\", \"discount\": 100}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: empty orderId",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": \"\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: orderId of 65 characters",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": \"" + "o".repeat(65) + "\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: long non-ASCII orderId",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        "{\"orderId\": \"" + "주문".repeat(40) + "\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: body over 16 KiB",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        JSON,
                        huge,
                        false,
                        413,
                        "PAYLOAD_TOO_LARGE"),
                new Bad(
                        "use: text/plain",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/W/use",
                        "text/plain",
                        "o-1",
                        false,
                        415,
                        "UNSUPPORTED_MEDIA_TYPE"),
                new Bad(
                        "use: wallet id not a number",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/abc/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "use: someone else's coupon",
                        HttpMethod.POST,
                        "/api/v1/me/coupons/O/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        false,
                        404,
                        "WALLET_COUPON_NOT_FOUND"),
                new Bad(
                        "use: with GET",
                        HttpMethod.GET,
                        "/api/v1/me/coupons/W/use",
                        null,
                        null,
                        false,
                        405,
                        "METHOD_NOT_ALLOWED"),
                // devices
                new Bad(
                        "device: unknown platform",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok-1",
                        JSON,
                        "{\"platform\": \"BLACKBERRY\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: platform a number",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok-1",
                        JSON,
                        "{\"platform\": 1}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: missing platform",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok-1",
                        JSON,
                        "{}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: not JSON",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok-1",
                        JSON,
                        "ANDROID",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: token with a space",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok%201",
                        JSON,
                        "{\"platform\": \"ANDROID\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: token of 300 characters",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/" + "t".repeat(300),
                        JSON,
                        "{\"platform\": \"ANDROID\"}",
                        false,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "device: form content type",
                        HttpMethod.PUT,
                        "/api/v1/me/devices/tok-1",
                        MediaType.APPLICATION_FORM_URLENCODED_VALUE,
                        "platform=ANDROID",
                        false,
                        415,
                        "UNSUPPORTED_MEDIA_TYPE"),
                // admin
                new Bad(
                        "admin: negative quantity",
                        HttpMethod.POST,
                        "/admin/v1/coupons",
                        JSON,
                        "{\"name\":\"x\",\"totalQuantity\":-1,\"openAt\":\"2026-11-27T00:00:00Z\","
                                + "\"issueRatePerSecond\":1}",
                        true,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admin: name injection over 100 characters",
                        HttpMethod.POST,
                        "/admin/v1/coupons",
                        JSON,
                        "{\"name\":\"" + "<script>alert(1)</script>".repeat(5) + "\",\"totalQuantity\":1,"
                                + "\"openAt\":\"2026-11-27T00:00:00Z\",\"issueRatePerSecond\":1}",
                        true,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admin: rate a string",
                        HttpMethod.PATCH,
                        "/admin/v1/coupons/C",
                        JSON,
                        "{\"issueRatePerSecond\":\"fast\"}",
                        true,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admin: rate huge",
                        HttpMethod.PATCH,
                        "/admin/v1/coupons/C",
                        JSON,
                        "{\"issueRatePerSecond\":1e300}",
                        true,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admin: close a bad id",
                        HttpMethod.POST,
                        "/admin/v1/coupons/abc/close",
                        null,
                        null,
                        true,
                        400,
                        "INVALID_REQUEST"),
                new Bad(
                        "admin: close an unknown coupon",
                        HttpMethod.POST,
                        "/admin/v1/coupons/987654321/close",
                        null,
                        null,
                        true,
                        404,
                        "COUPON_NOT_FOUND"),
                new Bad(
                        "admin: body over 16 KiB",
                        HttpMethod.POST,
                        "/admin/v1/coupons",
                        JSON,
                        huge,
                        true,
                        413,
                        "PAYLOAD_TOO_LARGE"),
                new Bad(
                        "admin: member token",
                        HttpMethod.POST,
                        "/admin/v1/coupons/C/close",
                        null,
                        null,
                        false,
                        403,
                        "FORBIDDEN")));
        return bad.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("requests")
    void shouldAnswerTheContractsProblemAndWriteNothing(Bad bad) {
        String path = bad.path()
                .replace("/W/", "/" + walletId + "/")
                .replace("/O/", "/" + othersWalletId + "/")
                .replaceAll("/C(/|$)", "/" + couponId + "$1");
        String token = bad.admin() ? TestEnvironment.adminToken() : TestEnvironment.memberToken(MEMBER);
        WriteSnapshot before = WriteSnapshot.take(jdbc, redis);
        List<String> coupons = couponRows();

        // absolute and pre-encoded: the percent-encoded cases reach the server exactly as written
        var request = client().method(bad.method())
                .uri(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + token);
        if (bad.contentType() != null) {
            request = request.header("Content-Type", bad.contentType());
        }
        EntityExchangeResult<String> result = (bad.body() == null ? request : request.bodyValue(bad.body()))
                .exchange()
                .expectBody(String.class)
                .returnResult();

        assertThat(result.getStatus().value()).as("status").isEqualTo(bad.status());
        assertThat(result.getResponseHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
        String body = result.getResponseBody();
        assertThat(body).contains("\"code\":\"" + bad.code() + "\"").contains("\"status\":" + bad.status());
        assertThat(body).doesNotContain("Exception", "com.flashcoupon", "org.springframework", "\tat ", "java.");
        assertThat(WriteSnapshot.take(jdbc, redis)).isEqualTo(before);
        assertThat(couponRows()).isEqualTo(coupons);
    }

    private List<String> couponRows() {
        return jdbc.sql("SELECT CONCAT_WS('|', id, name, total_quantity, issue_rate_per_second, status,"
                        + " COALESCE(close_at, '-'), issued_count) FROM coupon ORDER BY id")
                .query(String.class)
                .list();
    }
}
