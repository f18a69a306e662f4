package com.flashcoupon.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.blockhound.BlockingOperationError;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Fails if anything blocks an event-loop thread on the request paths (docs/architecture.md: the api's request path is
 * non-blocking). Runs in a JVM of its own (see the api pom), since BlockHound stays installed for the JVM's life.
 */
@ApiTest
class EventLoopBlockingTest extends ApiTestBase {

    static {
        BlockHound.install(builder -> builder
                // class loading and logging's first use read files once; not on the request path afterwards
                .allowBlockingCallsInside("java.lang.ClassLoader", "loadClass")
                .allowBlockingCallsInside("ch.qos.logback.classic.Logger", "callAppenders"));
    }

    @Test
    void shouldDetectBlockingWhenSomethingSleepsOnANonBlockingThread() {
        assertThatThrownBy(() -> Mono.fromRunnable(() -> {
                            try {
                                Thread.sleep(1);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        })
                        .subscribeOn(Schedulers.parallel())
                        .block(Duration.ofSeconds(5)))
                .hasCauseInstanceOf(BlockingOperationError.class);
    }

    @Test
    void shouldServeEveryRequestPathWithoutBlockingAnEventLoop() {
        long id = createCoupon(2, 10);
        String admin = "Bearer " + TestEnvironment.adminToken();

        requestCoupon(id, "nb-1").expectStatus().isAccepted();
        requestCoupon(id, "nb-1").expectStatus().isOk();
        requestCoupon(id, "nb-2").expectStatus().isAccepted();
        requestCoupon(id, "nb-3").expectStatus().isEqualTo(409);
        requestCoupon(123_456_789L, "nb-1").expectStatus().isNotFound();
        client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("nb-1"))
                .exchange()
                .expectStatus()
                .isOk();
        client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("nobody"))
                .exchange()
                .expectStatus()
                .isNotFound();
        client().get()
                .uri("/api/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("nb-1"))
                .exchange()
                .expectStatus()
                .isOk();
        client().get()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", admin)
                .exchange()
                .expectStatus()
                .isOk();
        client().get()
                .uri("/admin/v1/coupons")
                .header("Authorization", admin)
                .exchange()
                .expectStatus()
                .isOk();
        client().post()
                .uri("/admin/v1/coupons/{id}/close", id)
                .header("Authorization", admin)
                .exchange()
                .expectStatus()
                .isOk();
        client().get()
                .uri("/api/v1/coupons/1")
                .header("Authorization", "Bearer bad")
                .exchange()
                .expectStatus()
                .isUnauthorized();
        // the proof-of-work challenge (a Redis read, then a restore for an id Redis does not hold) and the redemption
        // API behind its per-caller rate limit (a Redis script before the blocking executor)
        client().get()
                .uri("/api/v1/coupons/{id}/challenge", id)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("nb-1"))
                .exchange()
                .expectStatus()
                .isOk();
        client().get()
                .uri("/api/v1/coupons/{id}/challenge", 123_456_789L)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("nb-1"))
                .exchange()
                .expectStatus()
                .isNotFound();
        client().get()
                .uri("/internal/v1/redemptions?orderId=nb-order")
                .header(
                        "Authorization",
                        "Bearer "
                                + TestEnvironment.token(
                                        "nb-service",
                                        List.of("coupon-redeemer"),
                                        Instant.now().plusSeconds(600)))
                .exchange()
                .expectStatus()
                .isOk();
    }
}
