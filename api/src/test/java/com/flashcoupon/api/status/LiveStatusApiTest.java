package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.MemberStream;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueResult;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.kafka.core.KafkaTemplate;

/** {@code GET .../issue-requests/me/events}: live status over server-sent events (docs/http-api.md). */
@ApiTest
class LiveStatusApiTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Value("${local.server.port}")
    int port;

    @Autowired
    KafkaTemplate<Object, Object> kafka;

    @Autowired
    LiveResultIntake intake;

    @Autowired
    LiveStatusHub hub;

    private MemberStream open(long couponId, String memberId) {
        return MemberStream.open(port, couponId, memberId);
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(15))
                .pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }

    @Nested
    class Streaming {

        @Test
        void shouldSendTheStatusAtOnceThenFallingPositionsThenIssuedAndClose() {
            long id = createCoupon(10, 1);
            for (String member : List.of("ahead-1", "ahead-2", "ahead-3", "live-1")) {
                requestCoupon(id, member).expectStatus().isAccepted();
            }
            MemberStream stream = open(id, "live-1");
            awaitUntil(() -> stream.statuses().size() == 1);
            assertThat(stream.statuses().get(0))
                    .containsEntry("status", "WAITING")
                    .containsEntry("position", 4)
                    .containsEntry("memberId", "live-1");

            redis.opsForValue().increment(CouponKeys.done(id), 2);
            awaitUntil(() -> stream.statuses().size() == 2);
            assertThat(stream.statuses().get(1)).containsEntry("position", 2).containsEntry("status", "WAITING");
            redis.opsForValue().increment(CouponKeys.done(id), 1);
            awaitUntil(() -> stream.statuses().size() == 3);
            assertThat(stream.statuses().get(2)).containsEntry("position", 1);

            LiveResults.send(
                    kafka,
                    intake,
                    new IssueResult(id + ":live-1", id, "live-1", 4, IssueResult.Outcome.ISSUED, 777L, null, 1L));

            awaitUntil(() -> stream.completed);
            assertThat(stream.statuses()).hasSize(4);
            assertThat(stream.statuses().get(3))
                    .containsEntry("status", "ISSUED")
                    .containsEntry("walletCouponId", 777)
                    .containsEntry("position", null);
            assertThat(stream.errors).isEmpty();
            awaitUntil(() -> hub.openStreams() == 0);
        }

        @Test
        void shouldSendFailedWithReasonFromRedisWhenTheResultEventWasMissed() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "missed").expectStatus().isAccepted();
            MemberStream stream = open(id, "missed");
            awaitUntil(() -> stream.statuses().size() == 1);

            redis.opsForHash().put(CouponKeys.result(id), "missed", CouponKeys.FAILED_PREFIX + "SOLD_OUT");
            redis.opsForValue().increment(CouponKeys.done(id));

            awaitUntil(() -> stream.completed);
            assertThat(stream.statuses().getLast())
                    .containsEntry("status", "FAILED")
                    .containsEntry("failureReason", "SOLD_OUT");
        }

        @Test
        void shouldSendOneFinalEventAndCloseWhenAlreadyDecided() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "decided").expectStatus().isAccepted();
            redis.opsForHash().put(CouponKeys.result(id), "decided", CouponKeys.ISSUED_PREFIX + "55");

            MemberStream stream = open(id, "decided");

            awaitUntil(() -> stream.completed);
            assertThat(stream.statuses())
                    .singleElement()
                    .satisfies(status ->
                            assertThat(status).containsEntry("status", "ISSUED").containsEntry("walletCouponId", 55));
        }

        @Test
        void shouldSendHeartbeatCommentsWhileWaiting() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "patient").expectStatus().isAccepted();
            MemberStream stream = open(id, "patient");

            awaitUntil(() -> stream.events.stream().anyMatch(e -> e.event() == null && e.comment() != null));
            assertThat(stream.statuses()).hasSize(1);
            stream.close();
        }
    }

    @Nested
    class Refusing {

        @Test
        void shouldAnswer404ProblemWhenTheMemberNeverAsked() {
            long id = createCoupon(10, 1);

            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me/events", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("stranger"))
                    .accept(MediaType.TEXT_EVENT_STREAM)
                    .exchange()
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("REQUEST_NOT_FOUND");
            awaitUntil(() -> hub.openStreams() == 0);
        }

        @Test
        void shouldAnswer400WhenTheCouponIdIsBadAnd401WithoutToken() {
            for (String id : new String[] {"abc", "0", "-3"}) {
                client().get()
                        .uri("/api/v1/coupons/" + id + "/issue-requests/me/events")
                        .header("Authorization", "Bearer " + TestEnvironment.memberToken("m"))
                        .accept(MediaType.TEXT_EVENT_STREAM)
                        .exchange()
                        .expectStatus()
                        .isBadRequest()
                        .expectBody()
                        .jsonPath("$.code")
                        .isEqualTo("INVALID_REQUEST");
            }
            client().get()
                    .uri("/api/v1/coupons/1/issue-requests/me/events")
                    .accept(MediaType.TEXT_EVENT_STREAM)
                    .exchange()
                    .expectStatus()
                    .isUnauthorized();
        }
    }
}
