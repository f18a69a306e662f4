package com.flashcoupon.api.web;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.WriteSnapshot;
import java.net.URI;
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
 * Bad input through the whole app against the real servers: each answer is the expected 4xx problem with its code,
 * carries no stack trace or internal name, and no MySQL row or Redis key changed.
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

    /**
     * Only what needs the real servers: rows that exist or not, and percent escapes and bodies as Netty reads them off
     * the wire. The status and problem of every other bad input are in the slice tests ({@code *WebTest}), which see
     * that nothing behind the controller is called.
     */
    static Stream<Arguments> requests() {
        String huge = "{\"orderId\":\"" + "x".repeat(17 * 1024) + "\"}";
        return Stream.of(
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
                                "use: body over 16 KiB",
                                HttpMethod.POST,
                                "/api/v1/me/coupons/W/use",
                                JSON,
                                huge,
                                false,
                                413,
                                "PAYLOAD_TOO_LARGE"),
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
                                "device: token with a space",
                                HttpMethod.PUT,
                                "/api/v1/me/devices/tok%201",
                                JSON,
                                "{\"platform\": \"ANDROID\"}",
                                false,
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
                                "COUPON_NOT_FOUND"))
                .map(Arguments::of);
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
