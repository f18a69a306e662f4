package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyLong;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.BDDMockito.given;

import com.flashcoupon.api.status.IssueStatus;
import com.flashcoupon.api.support.JwksServer;
import com.flashcoupon.api.support.WebSliceBase;
import com.flashcoupon.api.support.WebSliceTest;
import com.nimbusds.jose.jwk.RSAKey;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.bean.override.mockito.MockitoBean;
import reactor.core.publisher.Mono;

/**
 * JWK mode (the production mode) under tokens naming made-up keys, sent without any credential: on the lean admission
 * path, an admin endpoint and another member endpoint, they are 401 and cost the identity provider nothing beyond the
 * first fetch of the refresh interval. The interval itself (a rotation picked up within it) is in
 * {@code JwkSetRefreshTest}, on a virtual clock.
 */
@WebSliceTest
@Import({AdmissionController.class, AdmissionFilter.class})
class JwkSetFloodWebTest extends WebSliceBase {

    private static final JwksServer IDP = start();
    private static final RSAKey KEY = JwksServer.newKey("key-1");

    private static JwksServer start() {
        try {
            return new JwksServer();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @DynamicPropertySource
    static void jwkMode(DynamicPropertyRegistry registry) {
        registry.add("coupon.jwt.jwk-set-uri", IDP::uri);
        registry.add("coupon.jwt.issuer", () -> JwksServer.ISSUER);
        registry.add("coupon.jwt.audience", () -> JwksServer.AUDIENCE);
        // longer than the test: every fetch after the first would be one the flood caused
        registry.add("coupon.jwt.jwk-set-refresh-interval", () -> "1h");
    }

    @AfterAll
    static void stop() {
        IDP.close();
    }

    @MockitoBean
    private AdmissionService admissions;

    @Test
    void shouldNotFetchTheJwkSetAgainWhateverTheNumberOfUnknownKeyIds() {
        IDP.serve(KEY);
        given(admissions.admit(anyLong(), anyString(), anyMap(), any()))
                .willReturn(Mono.just(new AdmissionService.Answer(true, IssueStatus.waiting(42, "m-1", 7, 2, 10))));
        call(HttpMethod.POST, "/api/v1/coupons/42/issue-requests", JwksServer.token(KEY, "m-1", List.of()), null, null)
                .expectStatus()
                .isAccepted();
        assertThat(IDP.fetches()).as("the first fetch").isEqualTo(1);

        for (int i = 0; i < 100; i++) {
            call(HttpMethod.POST, "/api/v1/coupons/42/issue-requests", JwksServer.randomKidToken(), null, null)
                    .expectStatus()
                    .isUnauthorized();
            call(HttpMethod.GET, "/admin/v1/coupons", JwksServer.randomKidToken(), null, null)
                    .expectStatus()
                    .isUnauthorized();
            call(HttpMethod.GET, "/api/v1/me/coupons", JwksServer.randomKidToken(), null, null)
                    .expectStatus()
                    .isUnauthorized();
        }

        assertThat(IDP.fetches())
                .as("fetches of the JWK set after 300 tokens with unknown key ids")
                .isEqualTo(1);
        call(HttpMethod.POST, "/api/v1/coupons/42/issue-requests", JwksServer.token(KEY, "m-2", List.of()), null, null)
                .expectStatus()
                .isAccepted();
    }
}
