package com.flashcoupon.api.wallet;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.flashcoupon.api.web.ApiException;
import java.time.Instant;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import reactor.core.publisher.Mono;

/**
 * Using a wallet coupon (docs/http-api.md, {@code POST /api/v1/me/coupons/{id}/use}) in the HTTP layer alone: bad input
 * never reaches the service, and its refusals become {@code 404 WALLET_COUPON_NOT_FOUND}, {@code 409 ALREADY_USED} and
 * {@code 409 EXPIRED}.
 */
@WebSliceTest
@Import(WalletController.class)
class WalletWebTest extends WebSliceBase {

    private static final String JSON = MediaType.APPLICATION_JSON_VALUE;
    private static final String USE = "/api/v1/me/coupons/7/use";

    @MockitoBean
    private WalletService wallet;

    static Stream<Arguments> badUses() {
        return Stream.of(
                Arguments.of("malformed JSON", USE, JSON, "{", 400, "INVALID_REQUEST"),
                Arguments.of("truncated JSON", USE, JSON, "{\"orderId\": \"o-1", 400, "INVALID_REQUEST"),
                Arguments.of("orderId a number", USE, JSON, "{\"orderId\": 42}", 400, "INVALID_REQUEST"),
                Arguments.of("orderId an object", USE, JSON, "{\"orderId\": {\"$ne\": null}}", 400, "INVALID_REQUEST"),
                Arguments.of("missing orderId", USE, JSON, "{}", 400, "INVALID_REQUEST"),
                Arguments.of(
                        "extra field", USE, JSON, "{\"orderId\": \"o-1\", \"discount\": 100}", 400, "INVALID_REQUEST"),
                Arguments.of("empty orderId", USE, JSON, "{\"orderId\": \"\"}", 400, "INVALID_REQUEST"),
                Arguments.of("null orderId", USE, JSON, "{\"orderId\": null}", 400, "INVALID_REQUEST"),
                Arguments.of(
                        "orderId of 65 characters",
                        USE,
                        JSON,
                        "{\"orderId\": \"" + "o".repeat(65) + "\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "long non-ASCII orderId",
                        USE,
                        JSON,
                        "{\"orderId\": \"" + "주문".repeat(40) + "\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "body over 16 KiB",
                        USE,
                        JSON,
                        "{\"orderId\":\"" + "x".repeat(17 * 1024) + "\"}",
                        413,
                        "PAYLOAD_TOO_LARGE"),
                Arguments.of("text/plain", USE, "text/plain", "o-1", 415, "UNSUPPORTED_MEDIA_TYPE"),
                Arguments.of(
                        "wallet id not a number",
                        "/api/v1/me/coupons/abc/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "wallet id zero",
                        "/api/v1/me/coupons/0/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "wallet id negative",
                        "/api/v1/me/coupons/-1/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of(
                        "wallet id beyond 64 bits",
                        "/api/v1/me/coupons/99999999999999999999/use",
                        JSON,
                        "{\"orderId\": \"o-1\"}",
                        400,
                        "INVALID_REQUEST"),
                Arguments.of("with GET", USE, null, null, 405, "METHOD_NOT_ALLOWED"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badUses")
    void shouldRefuseWithoutReachingTheServiceWhenTheInputIsBad(
            String label, String path, String type, String body, int status, String code) {
        HttpMethod method = body == null ? HttpMethod.GET : HttpMethod.POST;
        expectProblem(call(method, path, Tokens.member("m-1"), type, body), status, code);
        verifyNoInteractions(wallet);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(ApiException.walletCouponNotFound(7), 404, "WALLET_COUPON_NOT_FOUND"),
                Arguments.of(ApiException.alreadyUsed(7), 409, "ALREADY_USED"),
                Arguments.of(ApiException.expired(7, Instant.parse("2026-01-01T00:00:00Z")), 409, "EXPIRED"));
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void shouldAnswerTheContractsProblemWhenTheServiceRefuses(ApiException refusal, int status, String code) {
        given(wallet.use(anyLong(), anyString(), anyString())).willReturn(Mono.error(refusal));

        expectProblem(call(HttpMethod.POST, USE, Tokens.member("m-1"), JSON, "{\"orderId\":\"o-1\"}"), status, code);
    }

    @Test
    void shouldAnswer503WhenTheDatabaseIsDown() {
        given(wallet.use(anyLong(), anyString(), anyString()))
                .willReturn(Mono.error(new org.springframework.dao.QueryTimeoutException("slow")));

        expectProblem(
                call(HttpMethod.POST, USE, Tokens.member("m-1"), JSON, "{\"orderId\":\"o-1\"}"), 503, "UNAVAILABLE");
    }
}
