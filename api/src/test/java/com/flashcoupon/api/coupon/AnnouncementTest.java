package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Security review finding 14 (issue 24, item 10): an event is visible to members from its {@code announceAt} (given at
 * creation, or {@code openAt} minus {@code COUPON_ANNOUNCE_LEAD}, 10 minutes by default). Before it, the member's
 * coupon read and admission answer 404 {@code COUPON_NOT_FOUND} exactly as for an id that does not exist, on the lean
 * admission path and through the chain, and after a Redis loss too; operators see the event and its {@code
 * announceAt}.
 */
@ApiTest
class AnnouncementTest extends ApiTestBase {

    @LocalServerPort
    private int port;

    private static String in(Duration from) {
        return Instant.now().plus(from).truncatedTo(ChronoUnit.SECONDS).toString();
    }

    private long create(String openAt, String announceAt) {
        Map<String, Object> body = new HashMap<>(
                Map.of("name", "Announced later", "totalQuantity", 10, "openAt", openAt, "issueRatePerSecond", 10));
        if (announceAt != null) {
            body.put("announceAt", announceAt);
        }
        return createCoupon(body);
    }

    private WebTestClient.ResponseSpec member(String method, String path, String memberId) {
        return client().method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(URI.create("http://127.0.0.1:" + port + path))
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .exchange();
    }

    private static String digitsEncoded(long id) {
        StringBuilder text = new StringBuilder();
        for (char digit : Long.toString(id).toCharArray()) {
            text.append("%3").append(digit);
        }
        return text.toString();
    }

    /** What a member gets for the event: its read, its admission on the lean path and through the chain. */
    private void expectHidden(long id, String memberId) {
        expectProblem(member("GET", "/api/v1/coupons/" + id, memberId), 404, "COUPON_NOT_FOUND");
        expectProblem(member("POST", "/api/v1/coupons/" + id + "/issue-requests", memberId), 404, "COUPON_NOT_FOUND");
        expectProblem(
                member("POST", "/api/v1/coupons/" + digitsEncoded(id) + "/issue-requests", memberId),
                404,
                "COUPON_NOT_FOUND");
        expectProblem(
                member("GET", "/api/v1/coupons/" + id + "/issue-requests/me", memberId), 404, "REQUEST_NOT_FOUND");
        // the proof-of-work challenge too: its answer would tell that the event exists, and its difficulty
        expectProblem(member("GET", "/api/v1/coupons/" + id + "/challenge", memberId), 404, "COUPON_NOT_FOUND");
    }

    @Test
    void shouldHideAnEventFromMembersUntilTenMinutesBeforeItOpensByDefault() {
        String openAt = in(Duration.ofHours(1));
        long id = create(openAt, null);

        expectHidden(id, "early-bird");

        client().get()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.announceAt")
                .isEqualTo(Instant.parse(openAt).minus(Duration.ofMinutes(10)).toString());
    }

    @Test
    void shouldStayHiddenAfterRedisLostTheEvent() {
        long id = create(in(Duration.ofHours(1)), in(Duration.ofMinutes(30)));
        TestEnvironment.redis().delete(CouponKeys.meta(id));

        expectHidden(id, "after-loss");
    }

    @Test
    void shouldShowAnAnnouncedEventBeforeItOpens() {
        long id = create(in(Duration.ofHours(1)), in(Duration.ofSeconds(-1)));

        member("GET", "/api/v1/coupons/" + id, "announced")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("SCHEDULED");
        expectProblem(member("POST", "/api/v1/coupons/" + id + "/issue-requests", "announced"), 409, "NOT_OPEN");
        member("GET", "/api/v1/coupons/" + id + "/challenge", "announced")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.difficultyBits")
                .isEqualTo(0);
    }

    @Test
    void shouldRefuseAnAnnouncementAfterTheOpening() {
        expectProblem(
                client().post()
                        .uri("/admin/v1/coupons")
                        .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of(
                                "name",
                                "Late",
                                "totalQuantity",
                                10,
                                "openAt",
                                in(Duration.ofHours(1)),
                                "announceAt",
                                in(Duration.ofHours(2)),
                                "issueRatePerSecond",
                                10))
                        .exchange(),
                400,
                "INVALID_REQUEST");
    }

    @Test
    void shouldKeepShowingEventsOfTheDefaultTestSetupThatOpenedAlready() {
        long id = createCoupon(10, 10);
        member("GET", "/api/v1/coupons/" + id, "regular").expectStatus().isOk();
        assertThat(id).isPositive();
    }
}
