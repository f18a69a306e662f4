package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Security review N5 (the shared secret): behind a load balancer a member fetches a proof-of-work challenge from one
 * api instance and sends the proof to another, so every instance must sign with the same key. Outside the local
 * profile an api without {@code COUPON_HUMAN_CHECK_SECRET} (or with the public local one) refuses to start, as it does
 * for the JWT secret; with the key shared, a proof fetched from one instance is accepted by the other.
 */
@ApiTest
class SharedHumanCheckSecretTest extends ApiTestBase {

    @Value("${spring.kafka.bootstrap-servers}")
    private String brokers;

    @Test
    void shouldAcceptOnOneInstanceAProofFetchedFromAnother() {
        long id = createCoupon(Map.of(
                "name",
                "Two instances",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "humanCheck",
                Map.of("type", "PROOF_OF_WORK", "difficultyBits", 4)));
        try (ConfigurableApplicationContext second = ApiInstance.start(brokers, Map.of())) {
            WebTestClient other = ApiInstance.client(second);
            for (String member : new String[] {"two-1", "two-2"}) {
                // fetched from one, sent to the other, both ways
                WebTestClient from = member.equals("two-1") ? client() : other;
                WebTestClient to = member.equals("two-1") ? other : client();
                Map<?, ?> challenge = from.get()
                        .uri("/api/v1/coupons/{id}/challenge", id)
                        .header("Authorization", "Bearer " + Tokens.member(member))
                        .exchange()
                        .expectStatus()
                        .isOk()
                        .expectBody(Map.class)
                        .returnResult()
                        .getResponseBody();
                to.post()
                        .uri("/api/v1/coupons/{id}/issue-requests", id)
                        .header("Authorization", "Bearer " + Tokens.member(member))
                        .header(GateChecks.PROOF_HEADER, ProofOfWork.solve((String) challenge.get("challenge"), 4))
                        .exchange()
                        .expectStatus()
                        .isAccepted();
            }
        }
        assertThat(TestEnvironment.redis().opsForZSet().range(CouponKeys.queue(id), 0, -1))
                .containsExactly("two-1", "two-2");
    }

    @Test
    void shouldRefuseToStartWithoutASharedSecretOutsideTheLocalProfile() {
        assertThatThrownBy(() -> ApiInstance.start(brokers, Map.of("coupon.human-check.secret", "")))
                .hasStackTraceContaining("COUPON_HUMAN_CHECK_SECRET");
        assertThatThrownBy(() -> ApiInstance.start(
                        brokers,
                        Map.of("coupon.human-check.secret", "flash-coupon-local-human-check-do-not-use-in-production")))
                .hasStackTraceContaining("COUPON_HUMAN_CHECK_SECRET");
    }

    /** Security review N4: the verify URL carries the site's secret and the member's address: https only. */
    @Test
    void shouldRefuseToStartWithAPlainHttpVerifyUrlOutsideTheLocalProfile() {
        assertThatThrownBy(() -> ApiInstance.start(
                        brokers,
                        Map.of(
                                "coupon.human-check.verify-url",
                                "http://verify.example/siteverify",
                                "coupon.human-check.allowed-hostnames",
                                "shop.example")))
                .hasStackTraceContaining("COUPON_HUMAN_CHECK_VERIFY_URL");
        assertThatThrownBy(() -> ApiInstance.start(
                        brokers, Map.of("coupon.human-check.verify-url", "https://verify.example/siteverify")))
                .hasStackTraceContaining("COUPON_HUMAN_CHECK_ALLOWED_HOSTNAMES");
    }
}
