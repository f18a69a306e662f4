package com.flashcoupon.api.admission;

import static com.flashcoupon.api.support.ProblemAssert.expectProblem;
import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.ArgumentMatchers.eq;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.status.IssueStatus;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.flashcoupon.api.web.ApiException;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.RedisConnectionFailureException;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;
import reactor.core.publisher.Mono;

/**
 * The admission endpoint's refusals (docs/http-api.md, {@code POST .../issue-requests}) in the HTTP layer alone: what
 * the service answers becomes the contract's status and code; a malformed coupon id never reaches it.
 */
@WebSliceTest
@Import({AdmissionController.class, AdmissionFilter.class})
class AdmissionWebTest extends WebSliceBase {

    private static final String MEMBER = "m-admission";

    @MockitoBean
    private AdmissionService admissions;

    @MockitoSpyBean
    private ReactiveJwtDecoder decoder;

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(ApiException.soldOut(42), 409, "SOLD_OUT"),
                Arguments.of(ApiException.notOpenYet(42), 409, "NOT_OPEN"),
                Arguments.of(ApiException.closed(42), 409, "NOT_OPEN"),
                Arguments.of(ApiException.couponNotFound(42), 404, "COUPON_NOT_FOUND"),
                Arguments.of(ApiException.unavailable("MySQL"), 503, "UNAVAILABLE"),
                Arguments.of(new RedisConnectionFailureException("Redis is down"), 503, "UNAVAILABLE"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void shouldAnswerTheStatusWith202WhenNewlyAdmittedAnd200WhenAskedBefore(boolean newly) {
        var status = IssueStatus.waiting(42, MEMBER, 7, 2, 10);
        given(admissions.admit(eq(42L), eq(MEMBER), anyMap(), any()))
                .willReturn(Mono.just(new AdmissionService.Answer(newly, status)));

        call(HttpMethod.POST, "/api/v1/coupons/42/issue-requests", Tokens.member(MEMBER), null, null)
                .expectStatus()
                .isEqualTo(newly ? 202 : 200)
                .expectHeader()
                .location("/api/v1/coupons/42/issue-requests/me")
                .expectHeader()
                .contentType("application/json")
                .expectBody()
                .json("{\"couponId\":42,\"memberId\":\"" + MEMBER + "\",\"status\":\"WAITING\",\"position\":5,"
                        + "\"estimatedWaitSeconds\":1,\"walletCouponId\":null,\"assumedRatePerSecond\":10.0,"
                        + "\"estimatedWaitMillis\":500}");
    }

    /**
     * The same admission through the chain: the coupon id's digits percent-encoded are the same path to routing and
     * the controller, but not the plain raw path the lean path takes.
     */
    private static final String THROUGH_THE_CHAIN = "/api/v1/coupons/%34%32/issue-requests";

    private static final String LEAN = "/api/v1/coupons/42/issue-requests";

    private WebTestClient.ResponseSpec post(String scheme, String path, String token) {
        return http.post()
                .uri(URI.create(scheme + "://localhost" + path))
                .header(HttpHeaders.AUTHORIZATION, "Bearer " + token)
                .exchange();
    }

    /**
     * The admission's lean path ({@link AdmissionFilter}) answers with every header Spring Security's chain writes, over
     * plain HTTP and over HTTPS ({@code Strict-Transport-Security}): the same admission answered both ways, header by
     * header.
     */
    @ParameterizedTest
    @ValueSource(strings = {"http", "https"})
    void shouldAnswerWithTheHeadersOfTheSecurityChain(String scheme) {
        given(admissions.admit(eq(42L), eq(MEMBER), anyMap(), any()))
                .willReturn(Mono.just(new AdmissionService.Answer(true, IssueStatus.waiting(42, MEMBER, 7, 2, 10))));

        HttpHeaders lean = post(scheme, LEAN, Tokens.member(MEMBER))
                .expectStatus()
                .isAccepted()
                .returnResult(String.class)
                .getResponseHeaders();
        HttpHeaders chain = post(scheme, THROUGH_THE_CHAIN, Tokens.member(MEMBER))
                .expectStatus()
                .isAccepted()
                .returnResult(String.class)
                .getResponseHeaders();

        assertThat(chain.headerNames()).contains("X-Content-Type-Options", HttpHeaders.CACHE_CONTROL);
        if (scheme.equals("https")) {
            assertThat(chain.headerNames()).contains("Strict-Transport-Security");
        }
        assertThat(withoutRequestId(lean)).isEqualTo(withoutRequestId(chain));
        verify(admissions, times(2)).admit(anyLong(), anyString(), anyMap(), any());
    }

    /**
     * A token the decoder refuses is decoded once, by the lean path, which answers exactly what the chain answers it:
     * status, {@code WWW-Authenticate}, problem and every header.
     */
    @ParameterizedTest
    @ValueSource(strings = {"not-a-jwt", "eyJhbGciOiJIUzI1NiJ9.e30.c2lnbmF0dXJl"})
    void shouldAnswerARefusedTokenItselfExactlyAsTheChainDoesAfterDecodingItOnce(String refusedToken) {
        for (String scheme : List.of("http", "https")) {
            EntityExchangeResult<String> lean =
                    post(scheme, LEAN, refusedToken).expectBody(String.class).returnResult();
            clearInvocations(decoder);
            EntityExchangeResult<String> chain = post(scheme, THROUGH_THE_CHAIN, refusedToken)
                    .expectBody(String.class)
                    .returnResult();

            assertThat(chain.getStatus().value()).isEqualTo(401);
            assertThat(chain.getResponseHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE))
                    .isEqualTo("Bearer");
            assertThat(lean.getStatus()).isEqualTo(chain.getStatus());
            assertThat(lean.getResponseBody()).isEqualTo(chain.getResponseBody());
            assertThat(withoutRequestId(lean.getResponseHeaders()))
                    .isEqualTo(withoutRequestId(chain.getResponseHeaders()));
        }
        clearInvocations(decoder);
        post("http", LEAN, refusedToken).expectStatus().isUnauthorized();
        verify(decoder, times(1)).decode(refusedToken);
        verifyNoInteractions(admissions);
    }

    private static Map<String, List<String>> withoutRequestId(HttpHeaders headers) {
        Map<String, List<String>> all = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        headers.forEach(all::put);
        all.remove("X-Request-Id");
        return all;
    }

    @ParameterizedTest
    @ValueSource(strings = {"Bearer a b", "Basic dXNlcjpwYXNz", "Bearer ", "Bearer ===", "bearer abc.def.g=="})
    void shouldTakeOnlyTheBearerTokensTheSecurityChainWouldRead(String header) {
        var headers = new HttpHeaders();
        headers.add(HttpHeaders.AUTHORIZATION, header);

        assertThat(AdmissionFilter.bearerToken(headers))
                .isEqualTo(header.equals("bearer abc.def.g==") ? "abc.def.g==" : null);
    }

    @ParameterizedTest
    @MethodSource("refusals")
    void shouldAnswerTheContractsProblemWhenTheServiceRefuses(Throwable refusal, int status, String code) {
        given(admissions.admit(anyLong(), anyString(), anyMap(), any())).willReturn(Mono.error(refusal));

        expectProblem(
                call(HttpMethod.POST, "/api/v1/coupons/42/issue-requests", Tokens.member(MEMBER), null, null),
                status,
                code);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/v1/coupons/abc/issue-requests",
                "/api/v1/coupons/0/issue-requests",
                "/api/v1/coupons/-7/issue-requests",
                "/api/v1/coupons/99999999999999999999/issue-requests",
                "/api/v1/coupons/1%27%20OR%20%271%27%3D%271/issue-requests"
            })
    void shouldAnswer400WithoutReachingTheServiceWhenTheCouponIdIsBad(String path) {
        expectProblem(call(HttpMethod.POST, path, Tokens.member(MEMBER), null, null), 400, "INVALID_REQUEST");
        verifyNoInteractions(admissions);
    }

    @ParameterizedTest
    @ValueSource(strings = {"PUT", "DELETE"})
    void shouldAnswer405WhenTheMethodIsWrong(String method) {
        expectProblem(
                call(HttpMethod.valueOf(method), "/api/v1/coupons/1/issue-requests", Tokens.member(MEMBER), null, null),
                405,
                "METHOD_NOT_ALLOWED");
        verifyNoInteractions(admissions);
    }
}
