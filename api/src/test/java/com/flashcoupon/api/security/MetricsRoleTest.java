package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/** With {@code coupon.metrics.require-role} set, {@code /actuator/prometheus} needs a token holding that role. */
@ApiTest
@TestPropertySource(properties = "coupon.metrics.require-role=coupon-metrics")
class MetricsRoleTest extends ApiTestBase {

    @LocalServerPort
    private int port;

    @Test
    void shouldAnswer401WithoutAToken() {
        // the second is sent as it is ("%70" is "p"): the path routing decodes is the one protected
        for (String path : List.of("/actuator/prometheus", "/actuator/%70rometheus")) {
            expectProblem(
                    client().get()
                            .uri(URI.create("http://127.0.0.1:" + port + path))
                            .exchange(),
                    401,
                    "UNAUTHORIZED");
        }
    }

    @Test
    void shouldAnswer403WhenTheTokenLacksTheRole() {
        for (String token : List.of(TestEnvironment.memberToken("m-1"), TestEnvironment.adminToken())) {
            expectProblem(
                            client().get()
                                    .uri("/actuator/prometheus")
                                    .header("Authorization", "Bearer " + token)
                                    .exchange(),
                            403,
                            "FORBIDDEN")
                    .jsonPath("$.detail")
                    .isEqualTo("This needs the coupon-metrics role.");
        }
    }

    @Test
    void shouldServeMetricsWhenTheTokenHoldsTheRole() {
        String token = TestEnvironment.token(
                "scraper", List.of("coupon-metrics"), Instant.now().plusSeconds(600));
        client().get()
                .uri("/actuator/prometheus")
                .header("Authorization", "Bearer " + token)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("jvm_memory_used_bytes"));
    }

    @Test
    void shouldKeepHealthPublic() {
        client().get()
                .uri("/actuator/health/liveness")
                .exchange()
                .expectStatus()
                .isOk();
    }
}
