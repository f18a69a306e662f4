package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.WriteSnapshot;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.FluxExchangeResult;

/**
 * Every path with an id, member and admin, coupon ids and wallet ids, through the whole api and Netty: an id that is
 * not a plain positive decimal ({@code 0x2a}, {@code +42}, {@code %2B42}, {@code %2342}, {@code 4%202}, {@code 042},
 * other scripts' digits, ...) is 400 {@code INVALID_REQUEST}, and writes nothing, although Spring's own conversion
 * reads each of them as the real id. A WAF or cache keyed on the canonical path would not see those requests.
 */
@ApiTest
class NonCanonicalIdTest extends ApiTestBase {

    private static final String MEMBER = "non-canonical-member";

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @LocalServerPort
    private int port;

    private static long couponId;
    private static long walletId;

    @BeforeEach
    void fixtures() {
        if (couponId != 0) {
            return;
        }
        couponId = createCoupon(10, 10);
        requestCoupon(couponId, MEMBER).expectStatus().isAccepted();
        jdbc.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                        + " VALUES (?, ?, 1, NOW(3), NOW(3) + INTERVAL 30 DAY)")
                .params(couponId, MEMBER)
                .update();
        walletId = jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, MEMBER)
                .query(Long.class)
                .single();
    }

    /** Ways of writing {@code id} in a path that Spring's number conversion reads as {@code id}, percent-encoded. */
    static List<String> spellings(long id) {
        String digits = Long.toString(id);
        StringBuilder arabicIndic = new StringBuilder();
        for (char c : digits.toCharArray()) {
            arabicIndic.append((char) ('\u0660' + (c - '0')));
        }
        return List.of(
                "0x" + Long.toHexString(id),
                "0X" + Long.toHexString(id).toUpperCase(),
                "%23" + Long.toHexString(id),
                "+" + digits,
                "%2B" + digits,
                "0" + digits,
                "00" + digits,
                "%20" + digits,
                digits + "%20",
                digits.charAt(0) + "%20" + digits.substring(1),
                digits + "%09",
                URLEncoder.encode(arabicIndic.toString(), StandardCharsets.UTF_8),
                "-" + digits,
                digits + ".0",
                "0",
                "99999999999999999999");
    }

    /** The endpoints with an id in their path: method, path with {@code {id}}, body, whether an operator's. */
    record Endpoint(HttpMethod method, String path, String body, boolean admin, boolean walletId) {}

    static final List<Endpoint> ENDPOINTS = List.of(
            new Endpoint(HttpMethod.POST, "/api/v1/coupons/{id}/issue-requests", null, false, false),
            new Endpoint(HttpMethod.GET, "/api/v1/coupons/{id}", null, false, false),
            new Endpoint(HttpMethod.GET, "/api/v1/coupons/{id}/issue-requests/me", null, false, false),
            new Endpoint(HttpMethod.GET, "/api/v1/coupons/{id}/issue-requests/me/events", null, false, false),
            new Endpoint(
                    HttpMethod.POST, "/api/v1/me/coupons/{id}/use", "{\"orderId\":\"o-non-canonical\"}", false, true),
            new Endpoint(HttpMethod.GET, "/admin/v1/coupons/{id}", null, true, false),
            new Endpoint(HttpMethod.PATCH, "/admin/v1/coupons/{id}", "{\"issueRatePerSecond\":11}", true, false),
            new Endpoint(HttpMethod.GET, "/admin/v1/coupons/{id}/draw/entrants", null, true, false),
            new Endpoint(HttpMethod.POST, "/admin/v1/coupons/{id}/close", null, true, false));

    /** The status and, for a 400, the body; a stream's body (a request answered 200 by mistake) is never read. */
    private String answer(Endpoint endpoint, String id) {
        // absolute and pre-encoded: each spelling reaches the server exactly as written
        var request = client().method(endpoint.method())
                .uri(URI.create("http://127.0.0.1:" + port + endpoint.path().replace("{id}", id)))
                .header(
                        "Authorization",
                        "Bearer "
                                + (endpoint.admin()
                                        ? TestEnvironment.adminToken()
                                        : TestEnvironment.memberToken(MEMBER)));
        if (endpoint.body() != null) {
            request = request.contentType(MediaType.APPLICATION_JSON);
        }
        FluxExchangeResult<String> result = (endpoint.body() == null ? request : request.bodyValue(endpoint.body()))
                .exchange()
                .returnResult(String.class);
        int status = result.getStatus().value();
        if (status != 400) {
            result.getResponseBody().subscribe().dispose();
            return Integer.toString(status);
        }
        return status + " "
                + String.join("", result.getResponseBody().collectList().block(Duration.ofSeconds(30)));
    }

    @Test
    void shouldAnswer400AndWriteNothingWhenAnIdIsNotAPlainPositiveDecimal() {
        WriteSnapshot before = WriteSnapshot.take(jdbc, redis);
        Map<?, ?> eventBefore = adminView();
        List<String> wrong = new ArrayList<>();
        for (Endpoint endpoint : ENDPOINTS) {
            for (String id : spellings(endpoint.walletId() ? walletId : couponId)) {
                String answer = answer(endpoint, id);
                if (!answer.startsWith("400 ") || !answer.contains("\"code\":\"INVALID_REQUEST\"")) {
                    wrong.add(endpoint.method() + " " + endpoint.path().replace("{id}", id) + " -> " + answer);
                }
            }
        }
        assertThat(wrong).as("answers other than 400 INVALID_REQUEST").isEmpty();
        assertThat(WriteSnapshot.take(jdbc, redis)).isEqualTo(before);
        assertThat(adminView()).as("the event, neither patched nor closed").isEqualTo(eventBefore);
    }

    @Test
    void shouldServeTheCanonicalIdAndItsPercentEncodedDigits() {
        String digits = Long.toString(couponId);
        StringBuilder encoded = new StringBuilder();
        for (char c : digits.toCharArray()) {
            encoded.append('%').append(Integer.toHexString(c).toUpperCase());
        }
        for (String id : List.of(digits, encoded.toString())) {
            // percent-encoded digits are the same characters (RFC 3986, unreserved), so the same path
            assertThat(answer(ENDPOINTS.get(1), id)).as(id).isEqualTo("200");
        }
    }

    private Map<?, ?> adminView() {
        Map<?, ?> view = adminGet("/admin/v1/coupons/{id}", couponId);
        return Map.of("status", view.get("status"), "issueRatePerSecond", view.get("issueRatePerSecond"));
    }
}
