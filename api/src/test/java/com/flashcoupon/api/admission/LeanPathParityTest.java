package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;
import static org.mockito.Mockito.clearInvocations;
import static org.mockito.Mockito.doReturn;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;

import com.flashcoupon.api.status.IssueStatus;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpHeaders;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import org.springframework.test.context.bean.override.mockito.MockitoSpyBean;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import reactor.core.publisher.Mono;

/**
 * Hostile admissions get the same answer from the lean path ({@link AdmissionFilter}) as from Spring Security's chain:
 * path parameters and encoded separators that the chain's firewall refuses, header values it refuses, tokens whose
 * {@code roles} is not an array of strings. Each is sent to the plain path, which the lean path may take, and to the
 * same admission with its id's digits percent-encoded, which only the chain takes.
 */
@WebSliceTest
@Import({AdmissionController.class, AdmissionFilter.class})
class LeanPathParityTest extends WebSliceBase {

    private static final String MEMBER = "m-parity";
    private static final String LEAN = "/api/v1/coupons/42/issue-requests";
    private static final String THROUGH_THE_CHAIN = "/api/v1/coupons/%34%32/issue-requests";

    @MockitoBean
    private AdmissionService admissions;

    @MockitoSpyBean
    private ReactiveJwtDecoder decoder;

    @BeforeEach
    void admitting() {
        given(admissions.admit(anyLong(), anyString(), anyMap(), any()))
                .willReturn(Mono.just(new AdmissionService.Answer(true, IssueStatus.waiting(42, MEMBER, 7, 2, 10))));
    }

    private EntityExchangeResult<String> post(String path, String token, Map<String, String> headers) {
        var request = http.post().uri(URI.create(path)).header(HttpHeaders.AUTHORIZATION, "Bearer " + token);
        for (var header : headers.entrySet()) {
            request = request.header(header.getKey(), header.getValue());
        }
        return request.exchange().expectBody(String.class).returnResult();
    }

    /**
     * Path parameters ({@code ;}) and encoded separators: the chain's firewall answers 400 {@code INVALID_REQUEST}
     * before any token is read.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "/api/v1/coupons/42;jsessionid=x/issue-requests",
                "/api;a=b/v1/coupons/42/issue-requests",
                "/api/v1/coupons/42/issue-requests;a=b",
                "/api/v1/coupons/42%3Bx/issue-requests",
                "/api/v1/coupons/42%3bx/issue-requests",
                "/api/v1/coupons/42/issue-requests%3B",
                "/api/v1/coupons/42%2F/issue-requests",
                "/api/v1/coupons/42/%2E/issue-requests"
            })
    void shouldAnswerWhatTheFirewallAnswersWhenThePathCarriesParametersOrEncodedSeparators(String path) {
        for (String token : List.of(Tokens.member(MEMBER), "not-a-jwt")) {
            EntityExchangeResult<String> answer = post(path, token, Map.of());
            assertThat(answer.getStatus().value()).as("%s with %s", path, token).isEqualTo(400);
            assertThat(answer.getResponseBody()).contains("\"code\":\"INVALID_REQUEST\"");
        }
        verifyNoInteractions(admissions);
    }

    static Stream<Arguments> headers() {
        return Stream.of(
                // read by content negotiation, through the chain's firewalled request: refused there
                Arguments.of(HttpHeaders.ACCEPT, "application/json\u0007", 400),
                Arguments.of(HttpHeaders.ACCEPT, "application/json\u0000", 400),
                // read by nothing after the firewall: served by both
                Arguments.of("X-Trace", "a\u0001b", 202),
                // not ASCII but printable: the firewall accepts it
                Arguments.of("X-Trace", "caf\u00e9", 202));
    }

    @ParameterizedTest
    @MethodSource("headers")
    void shouldAnswerWhatTheChainAnswersWhenAHeaderValueIsNotPrintable(String name, String value, int status) {
        EntityExchangeResult<String> lean = post(LEAN, Tokens.member(MEMBER), Map.of(name, value));
        EntityExchangeResult<String> chain = post(THROUGH_THE_CHAIN, Tokens.member(MEMBER), Map.of(name, value));

        assertThat(chain.getStatus().value()).as("the chain's answer").isEqualTo(status);
        assertThat(lean.getStatus()).isEqualTo(chain.getStatus());
        assertThat(lean.getResponseBody()).isEqualTo(chain.getResponseBody());
    }

    static Stream<Arguments> malformedRoles() {
        return Stream.of(
                Arguments.of(List.of(1)),
                Arguments.of(List.of(Map.of("name", "coupon-admin"))),
                Arguments.of("coupon-admin"),
                Arguments.of(Map.of("coupon-admin", true)));
    }

    /** docs/http-api.md: {@code roles} is a JSON array of strings; any other token is malformed, a 401 everywhere. */
    @ParameterizedTest
    @MethodSource("malformedRoles")
    void shouldAnswer401OnBothPathsWhenRolesIsNotAnArrayOfStrings(Object roles) throws Exception {
        var claims = new JWTClaimsSet.Builder()
                .subject(MEMBER)
                .claim("roles", roles)
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build();
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(Tokens.SECRET.getBytes(StandardCharsets.UTF_8)));
        String token = jwt.serialize();

        EntityExchangeResult<String> lean = post(LEAN, token, Map.of());
        EntityExchangeResult<String> chain = post(THROUGH_THE_CHAIN, token, Map.of());

        assertThat(lean.getStatus().value()).isEqualTo(401);
        assertThat(chain.getStatus().value()).isEqualTo(401);
        assertThat(lean.getResponseBody()).isEqualTo(chain.getResponseBody()).contains("\"code\":\"UNAUTHORIZED\"");
        verifyNoInteractions(admissions);
    }

    /** The JWK set cannot be fetched: not the token's fault, so the chain answers, as it always did. */
    @Test
    void shouldLeaveADecoderFailureThatIsNotTheTokensToTheChain() {
        String token = Tokens.member("m-no-keys");
        doReturn(Mono.error(new IllegalStateException("Could not obtain the keys")))
                .when(decoder)
                .decode(token);

        EntityExchangeResult<String> chain = post(THROUGH_THE_CHAIN, token, Map.of());
        clearInvocations(decoder);
        EntityExchangeResult<String> lean = post(LEAN, token, Map.of());

        assertThat(lean.getStatus()).isEqualTo(chain.getStatus());
        verify(decoder, times(2)).decode(token);
        verifyNoInteractions(admissions);
    }
}
