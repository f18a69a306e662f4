package com.flashcoupon.worker.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.worker.support.PipelineTestSupport;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * With {@code COUPON_METRICS_REQUIRE_ROLE} set, the worker's {@code /actuator/prometheus} needs a token holding that
 * role, verified with the api's token settings, as the api's own metrics do; health stays public.
 */
@TestPropertySource(
        properties = {"coupon.metrics.require-role=coupon-metrics", "coupon.jwt.secret=" + MetricsRoleTest.SECRET})
class MetricsRoleTest extends PipelineTestSupport {

    static final String SECRET = "test-secret-for-the-worker-metrics-0123456789";

    @LocalServerPort
    int port;

    private HttpResponse<String> get(String path, String token) throws Exception {
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
        }
    }

    private static String token(String secret, String subject, Object roles) throws Exception {
        var claims = new JWTClaimsSet.Builder()
                .subject(subject)
                .claim("roles", roles)
                .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                .build();
        var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
        jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
        return jwt.serialize();
    }

    private static void assertProblem(HttpResponse<String> response, int status, String code) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/problem+json");
        assertThat(response.body()).contains("\"code\":\"" + code + "\"", "\"status\":" + status);
    }

    @Test
    void shouldAnswer401WithoutAGoodToken() throws Exception {
        // the second is sent as it is ("%70" is "p"): the path the container maps is the one protected
        for (String path : List.of("/actuator/prometheus", "/actuator/%70rometheus")) {
            HttpResponse<String> response = get(path, null);
            assertProblem(response, 401, "UNAUTHORIZED");
            assertThat(response.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
        }
        String otherKey = token("another-secret-that-is-long-enough-0123456789", "scraper", List.of("coupon-metrics"));
        assertProblem(get("/actuator/prometheus", otherKey), 401, "UNAUTHORIZED");
        assertProblem(get("/actuator/prometheus", "not-a-jwt"), 401, "UNAUTHORIZED");
        assertProblem(get("/actuator/prometheus", token(SECRET, "scraper", "coupon-metrics")), 401, "UNAUTHORIZED");
    }

    @Test
    void shouldAnswer403WhenTheTokenLacksTheRole() throws Exception {
        for (List<String> roles : List.of(List.<String>of(), List.of("coupon-admin"))) {
            HttpResponse<String> response = get("/actuator/prometheus", token(SECRET, "m-1", roles));
            assertProblem(response, 403, "FORBIDDEN");
            assertThat(response.body()).contains("This needs the coupon-metrics role.");
        }
    }

    @Test
    void shouldServeMetricsWhenTheTokenHoldsTheRole() throws Exception {
        HttpResponse<String> response =
                get("/actuator/prometheus", token(SECRET, "scraper", List.of("coupon-metrics")));

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("jvm_memory_used_bytes");
    }

    @Test
    void shouldKeepHealthPublic() throws Exception {
        assertThat(get("/actuator/health/liveness", null).statusCode()).isEqualTo(200);
    }
}
