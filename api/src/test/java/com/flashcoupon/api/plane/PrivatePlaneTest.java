package com.flashcoupon.api.plane;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The two planes (docs/operations.md, "Two planes"): with a private port and a management port set, as the Kubernetes
 * manifests set them, {@code /admin/**} and {@code /internal/**} answer only on the private port and are an unknown
 * path (404) on the public one; member paths answer only on the public port; the actuator only on the management
 * port, where the metrics role still holds. Without the settings one port answers every path (every other api test).
 */
@ApiTest
@TestPropertySource(
        properties = {
            "coupon.private-plane.port=0",
            "management.server.port=0",
            "coupon.metrics.require-role=coupon-metrics"
        })
class PrivatePlaneTest extends ApiTestBase {

    @LocalServerPort
    private int publicPort;

    @LocalManagementPort
    private int managementPort;

    @Autowired
    private PrivatePlane plane;

    @Test
    void theThreePortsDiffer() {
        assertThat(plane.port()).isPositive();
        assertThat(List.of(publicPort, plane.port(), managementPort)).doesNotHaveDuplicates();
    }

    @Test
    void adminAndInternalAreUnknownPathsOnThePublicPort() {
        String unknown =
                body(expectProblem(on(publicPort).get().uri("/no-such-path").exchange(), 404, "NOT_FOUND"));
        List<String> paths = List.of(
                "/admin/v1/coupons",
                "/admin/",
                "/admin",
                "/internal/v1/redemptions/1",
                // as routing reads it: "%61" is "a", a matrix parameter is dropped
                "/%61dmin/v1/coupons",
                "/internal;x=1/v1/redemptions/1");
        for (String path : paths) {
            for (String token : List.of(TestEnvironment.adminToken(), redeemerToken())) {
                String answer = body(expectProblem(
                        on(publicPort)
                                .get()
                                .uri(URI.create("http://127.0.0.1:" + publicPort + path))
                                .header("Authorization", "Bearer " + token)
                                .exchange(),
                        404,
                        "NOT_FOUND"));
                assertThat(answer)
                        .as("%s: the answer of an unknown path", path)
                        .isEqualTo(unknown.replace("\"/no-such-path\"", "\"" + path + "\""));
            }
        }
        expectProblem(
                on(publicPort)
                        .post()
                        .uri("/admin/v1/coupons")
                        .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue("{}")
                        .exchange(),
                404,
                "NOT_FOUND");
    }

    @Test
    void adminAndInternalAnswerOnThePrivatePort() {
        long coupon = createCouponOn(plane.port());

        on(plane.port())
                .get()
                .uri("/admin/v1/coupons/{id}", coupon)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk();
        on(plane.port()).get().uri("/admin/").exchange().expectStatus().isOk();
        // the same security as ever: no token, 401; the order service's route answers its own 404
        expectProblem(
                on(plane.port()).get().uri("/admin/v1/coupons/{id}", coupon).exchange(), 401, "UNAUTHORIZED");
        expectProblem(
                on(plane.port())
                        .get()
                        .uri("/internal/v1/redemptions/{redemptionId}", Long.MAX_VALUE)
                        .header("Authorization", "Bearer " + redeemerToken())
                        .exchange(),
                404,
                "REDEMPTION_NOT_FOUND");

        // members are on the public port only
        String member = TestEnvironment.memberToken("plane-member");
        on(publicPort)
                .get()
                .uri("/api/v1/coupons/{id}", coupon)
                .header("Authorization", "Bearer " + member)
                .exchange()
                .expectStatus()
                .isOk();
        expectProblem(
                on(plane.port())
                        .get()
                        .uri("/api/v1/coupons/{id}", coupon)
                        .header("Authorization", "Bearer " + member)
                        .exchange(),
                404,
                "NOT_FOUND");
    }

    @Test
    void thePublicPortsOpenApiDocumentListsOnlyThePathsItAnswers() {
        for (String document : List.of("/v3/api-docs/member", "/v3/api-docs", "/v3/%61pi-docs")) {
            on(publicPort)
                    .get()
                    .uri(URI.create("http://127.0.0.1:" + publicPort + document))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .value(body -> assertThat(body)
                            .contains("\"/api/v1/coupons/{couponId}/issue-requests\"")
                            .contains("\"/public/v1/coupons/{couponId}/draw\"")
                            .doesNotContain("\"/admin/")
                            .doesNotContain("\"/internal/"));
        }
        on(publicPort)
                .get()
                .uri("/v3/api-docs.yaml")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("/api/v1/coupons/").doesNotContain("/admin/v1/"));
        // another group is an unknown path there, and the private port serves the whole document
        expectProblem(on(publicPort).get().uri("/v3/api-docs/operator").exchange(), 404, "NOT_FOUND");
        on(plane.port())
                .get()
                .uri("/v3/api-docs")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body)
                        .contains("\"/admin/v1/coupons\"")
                        .contains("\"/internal/v1/redemptions/{redemptionId}\"")
                        .contains("\"/api/v1/coupons/{couponId}/issue-requests\""));
    }

    @Test
    void theActuatorAnswersOnlyOnTheManagementPort() {
        on(managementPort)
                .get()
                .uri("/actuator/health/liveness")
                .exchange()
                .expectStatus()
                .isOk();
        on(managementPort)
                .get()
                .uri("/actuator/health/readiness")
                .exchange()
                .expectStatus()
                .isOk();
        for (int port : List.of(publicPort, plane.port())) {
            on(port).get()
                    .uri("/actuator/health/liveness")
                    .exchange()
                    .expectStatus()
                    .isNotFound();
            on(port).get().uri("/actuator/prometheus").exchange().expectStatus().isNotFound();
        }
    }

    @Test
    void metricsOnTheManagementPortStillNeedTheRole() {
        expectProblem(on(managementPort).get().uri("/actuator/prometheus").exchange(), 401, "UNAUTHORIZED");
        expectProblem(
                on(managementPort)
                        .get()
                        .uri("/actuator/prometheus")
                        .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                        .exchange(),
                403,
                "FORBIDDEN");
        String scraper = TestEnvironment.token(
                "scraper", List.of("coupon-metrics"), Instant.now().plusSeconds(600));
        on(managementPort)
                .get()
                .uri("/actuator/prometheus")
                .header("Authorization", "Bearer " + scraper)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .value(body -> assertThat(body).contains("jvm_memory_used_bytes"));
    }

    private static WebTestClient on(int port) {
        return WebTestClient.bindToServer()
                .baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    private static String redeemerToken() {
        return TestEnvironment.token(
                "order-service", List.of("coupon-redeemer"), Instant.now().plusSeconds(600));
    }

    private static String body(WebTestClient.BodyContentSpec problem) {
        String body =
                new String(problem.returnResult().getResponseBodyContent(), java.nio.charset.StandardCharsets.UTF_8);
        // the request id differs between two answers
        return body.replaceAll("\"requestId\":\"[^\"]*\"", "");
    }

    private long createCouponOn(int port) {
        return ((Number) on(port).post()
                        .uri("/admin/v1/coupons")
                        .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(java.util.Map.of(
                                "name",
                                "Plane coupon",
                                "totalQuantity",
                                10,
                                "openAt",
                                Instant.now()
                                        .minusSeconds(60)
                                        .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                        .toString(),
                                "issueRatePerSecond",
                                10,
                                "validDays",
                                30))
                        .exchange()
                        .expectStatus()
                        .isCreated()
                        .expectBody(java.util.Map.class)
                        .returnResult()
                        .getResponseBody()
                        .get("id"))
                .longValue();
    }
}
