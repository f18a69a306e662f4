package com.flashcoupon.api.plane;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * With an admin port as well ({@code COUPON_ADMIN_PORT}): {@code /admin/**} answers only there, {@code /internal/**}
 * only on the private port, so that the operators and the order service are two network boundaries.
 */
@ApiTest
@TestPropertySource(
        properties = {"coupon.private-plane.port=0", "coupon.private-plane.admin-port=0", "management.server.port=0"})
class AdminPortTest extends ApiTestBase {

    @LocalServerPort
    private int publicPort;

    @Autowired
    private PrivatePlane plane;

    @Test
    void adminAnswersOnlyOnItsPort() {
        for (int port : List.of(publicPort, plane.port())) {
            expectProblem(
                    on(port).get()
                            .uri("/admin/v1/coupons/1")
                            .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                            .exchange(),
                    404,
                    "NOT_FOUND");
            expectProblem(on(port).get().uri("/admin/").exchange(), 404, "NOT_FOUND");
        }
        expectProblem(
                on(plane.adminPort())
                        .get()
                        .uri("/admin/v1/coupons/{id}", Long.MAX_VALUE)
                        .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                        .exchange(),
                404,
                "COUPON_NOT_FOUND");
        on(plane.adminPort()).get().uri("/admin/").exchange().expectStatus().isOk();
    }

    @Test
    void internalAnswersOnlyOnThePrivatePort() {
        String redeemer = TestEnvironment.token(
                "order-service", List.of("coupon-redeemer"), Instant.now().plusSeconds(600));
        for (int port : List.of(publicPort, plane.adminPort())) {
            expectProblem(
                    on(port).get()
                            .uri("/internal/v1/redemptions/1")
                            .header("Authorization", "Bearer " + redeemer)
                            .exchange(),
                    404,
                    "NOT_FOUND");
        }
        expectProblem(
                on(plane.port())
                        .get()
                        .uri("/internal/v1/redemptions/{id}", Long.MAX_VALUE)
                        .header("Authorization", "Bearer " + redeemer)
                        .exchange(),
                404,
                "REDEMPTION_NOT_FOUND");
        expectProblem(on(plane.adminPort()).get().uri("/api/v1/coupons/1").exchange(), 404, "NOT_FOUND");
    }

    private static WebTestClient on(int port) {
        return WebTestClient.bindToServer()
                .baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }
}
