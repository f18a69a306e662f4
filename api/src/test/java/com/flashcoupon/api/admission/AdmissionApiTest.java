package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;

/** {@code POST /api/v1/coupons/{id}/issue-requests} and the status resource, through HTTP (docs/http-api.md). */
@ApiTest
class AdmissionApiTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    private MeterRegistry meters;

    private Timer admissionsTimed() {
        return meters.find("http.server.requests")
                .tag("uri", "/api/v1/coupons/{couponId}/issue-requests")
                .tag("status", "202")
                .timer();
    }

    @Nested
    class Admitting {

        @Test
        void shouldAnswer202WithPositionAndLocationWhenNewlyAdmitted() {
            long id = createCoupon(10, 1);

            requestCoupon(id, "alice")
                    .expectStatus()
                    .isAccepted()
                    .expectHeader()
                    .location("/api/v1/coupons/" + id + "/issue-requests/me")
                    .expectBody()
                    .jsonPath("$.couponId")
                    .isEqualTo(id)
                    .jsonPath("$.memberId")
                    .isEqualTo("alice")
                    .jsonPath("$.status")
                    .isEqualTo("WAITING")
                    .jsonPath("$.position")
                    .isEqualTo(1)
                    .jsonPath("$.estimatedWaitSeconds")
                    .isEqualTo(1)
                    .jsonPath("$.walletCouponId")
                    .isEmpty()
                    .jsonPath("$.failureReason")
                    .doesNotExist();
            // the observation stops as the answer completes, which the client may see first
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> assertThat(admissionsTimed())
                            .as("the lean path (AdmissionFilter) is timed under the endpoint's pattern")
                            .isNotNull());
        }

        @Test
        void shouldAnswer200WithTheSamePositionWhenAskedTwice() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "first").expectStatus().isAccepted();
            requestCoupon(id, "bob").expectStatus().isAccepted();

            requestCoupon(id, "bob")
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.position")
                    .isEqualTo(2)
                    .jsonPath("$.status")
                    .isEqualTo("WAITING");
            assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(2);
        }

        @Test
        void shouldEstimateTheWaitFromTheRate() {
            long id = createCoupon(100, 2);
            for (int i = 0; i < 4; i++) {
                requestCoupon(id, "early-" + i).expectStatus().isAccepted();
            }

            requestCoupon(id, "fifth")
                    .expectStatus()
                    .isAccepted()
                    .expectBody()
                    .jsonPath("$.estimatedWaitSeconds")
                    .isEqualTo(3);
        }
    }

    @Nested
    class Refusing {

        @Test
        void shouldAnswerSoldOutWhenStockIsGone() {
            long id = createCoupon(1, 1);
            requestCoupon(id, "lucky").expectStatus().isAccepted();

            requestCoupon(id, "late")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectHeader()
                    .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("SOLD_OUT")
                    .jsonPath("$.status")
                    .isEqualTo(409)
                    .jsonPath("$.title")
                    .exists()
                    .jsonPath("$.type")
                    .exists()
                    .jsonPath("$.detail")
                    .exists();
        }

        @Test
        void shouldAnswerNotOpenWhenBeforeOpenAt() {
            long id = createCoupon(Map.of(
                    "name",
                    "Tomorrow",
                    "totalQuantity",
                    5,
                    "openAt",
                    Instant.now()
                            .plus(1, ChronoUnit.DAYS)
                            .truncatedTo(ChronoUnit.SECONDS)
                            .toString(),
                    // announced now: members see it before it opens (docs/http-api.md, Announcement)
                    "announceAt",
                    Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                    "issueRatePerSecond",
                    10));

            requestCoupon(id, "eager")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("NOT_OPEN");
            assertThat(redis.hasKey(CouponKeys.queue(id))).isFalse();
        }

        @Test
        void shouldAnswerNotOpenWhenClosedByOperatorButKeepAdmittedRequests() {
            long id = createCoupon(5, 1);
            requestCoupon(id, "in-time").expectStatus().isAccepted();

            client().post()
                    .uri("/admin/v1/coupons/{id}/close", id)
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("CLOSED");

            requestCoupon(id, "too-late")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("NOT_OPEN");
            assertThat(redis.opsForZSet().score(CouponKeys.queue(id), "in-time"))
                    .isEqualTo(1.0);
        }

        @Test
        void shouldAnswer404WhenCouponDoesNotExist() {
            requestCoupon(987_654_321L, "m")
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("COUPON_NOT_FOUND");
            assertThat(redis.hasKey(CouponKeys.meta(987_654_321L))).isFalse();
        }
    }

    @Nested
    class Recovering {

        @Test
        void shouldRestoreTheMirrorFromMySqlWhenRedisLostTheCoupon() {
            long id = createCoupon(3, 1);
            requestCoupon(id, "before").expectStatus().isAccepted();
            jdbc.sql("UPDATE coupon SET published_count = 2 WHERE id = ?")
                    .param(id)
                    .update();
            redis.delete(java.util.List.of(
                    CouponKeys.meta(id), CouponKeys.queue(id), CouponKeys.seq(id), CouponKeys.cursor(id)));

            requestCoupon(id, "after")
                    .expectStatus()
                    .isAccepted()
                    .expectBody()
                    .jsonPath("$.position")
                    .isEqualTo(3);
            requestCoupon(id, "one-too-many")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("SOLD_OUT");
        }
    }

    @Nested
    class Status {

        @Test
        void shouldShowWaitingWhenAdmittedAndNotYetIssued() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "carol").expectStatus().isAccepted();

            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("carol"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("WAITING")
                    .jsonPath("$.position")
                    .isEqualTo(1);
        }

        @Test
        void shouldShowIssuedWithWalletIdWhenTheWorkerRecordedIt() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "dave").expectStatus().isAccepted();
            redis.opsForHash().put(CouponKeys.result(id), "dave", CouponKeys.ISSUED_PREFIX + "4242");

            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("dave"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("ISSUED")
                    .jsonPath("$.walletCouponId")
                    .isEqualTo(4242)
                    .jsonPath("$.position")
                    .isEmpty();
        }

        @Test
        void shouldAnswer404WhenMemberNeverAsked() {
            long id = createCoupon(10, 1);

            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("stranger"))
                    .exchange()
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("REQUEST_NOT_FOUND");
        }

        @Test
        void shouldShowCouponWithRemainingQuantity() {
            long id = createCoupon(10, 1);
            requestCoupon(id, "erin").expectStatus().isAccepted();

            client().get()
                    .uri("/api/v1/coupons/{id}", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("erin"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.id")
                    .isEqualTo(id)
                    .jsonPath("$.totalQuantity")
                    .isEqualTo(10)
                    .jsonPath("$.remainingQuantity")
                    .isEqualTo(9)
                    .jsonPath("$.status")
                    .isEqualTo("OPEN")
                    .jsonPath("$.closeAt")
                    .isEmpty();
        }
    }
}
