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
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * {@code GET /api/v1/me/events?coupons=...}: one live stream for several of a member's requests, the caps per member
 * and coupon still holding; event ids and {@code Last-Event-ID} on both kinds of stream; the poll interval a status
 * read suggests (docs/http-api.md).
 */
@ApiTest
class MemberEventsApiTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Value("${local.server.port}")
    int port;

    @Autowired
    KafkaTemplate<Object, Object> kafka;

    @Autowired
    LiveStatusHub hub;

    private MemberStream several(String member, String lastEventId, long... couponIds) {
        StringBuilder coupons = new StringBuilder();
        for (long id : couponIds) {
            coupons.append(coupons.isEmpty() ? "" : ",").append(id);
        }
        return MemberStream.open(port, "/api/v1/me/events?coupons=" + coupons, member, lastEventId);
    }

    private static void awaitUntil(BooleanSupplier condition) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }

    @Autowired
    LiveResultIntake intake;

    private void issue(long couponId, String member, long walletId) {
        LiveResults.send(
                kafka,
                intake,
                new IssueResult(
                        couponId + ":" + member, couponId, member, 1, IssueResult.Outcome.ISSUED, walletId, null, 1L));
    }

    private static List<Map<String, Object>> statusesOf(MemberStream stream, long couponId) {
        return stream.statuses().stream()
                .filter(status -> ((Number) status.get("couponId")).longValue() == couponId)
                .toList();
    }

    @Nested
    class OneStreamForSeveralEvents {

        @Test
        void shouldFollowEachCouponThenCloseWhenEveryOneIsDecided() {
            long first = createCoupon(10, 1);
            long second = createCoupon(10, 1);
            requestCoupon(first, "ahead").expectStatus().isAccepted();
            for (long id : new long[] {first, second}) {
                requestCoupon(id, "many-1").expectStatus().isAccepted();
            }

            MemberStream stream = several("many-1", null, first, second);
            awaitUntil(() -> stream.statuses().size() == 2);
            assertThat(statusesOf(stream, first))
                    .singleElement()
                    .satisfies(status -> assertThat(status)
                            .containsEntry("status", "WAITING")
                            .containsEntry("position", 2));
            assertThat(statusesOf(stream, second))
                    .singleElement()
                    .satisfies(status -> assertThat(status).containsEntry("position", 1));
            assertThat(stream.last().id()).isIn(first + ":w2," + second + ":w1", second + ":w1," + first + ":w2");

            issue(second, "many-1", 901);
            awaitUntil(() -> statusesOf(stream, second).size() == 2);
            assertThat(statusesOf(stream, second).getLast())
                    .containsEntry("status", "ISSUED")
                    .containsEntry("walletCouponId", 901);
            assertThat(stream.completed)
                    .as("the first coupon is still followed")
                    .isFalse();

            redis.opsForValue().increment(CouponKeys.done(first));
            awaitUntil(() -> statusesOf(stream, first).size() == 2);
            assertThat(statusesOf(stream, first).getLast()).containsEntry("position", 1);
            issue(first, "many-1", 902);

            awaitUntil(() -> stream.completed);
            assertThat(statusesOf(stream, first).getLast()).containsEntry("walletCouponId", 902);
            assertThat(stream.errors).isEmpty();
        }

        @Test
        void shouldKeepTheCapPerMemberAndCouponReplacingOnlyThatCouponOnAnOlderStream() {
            long first = createCoupon(10, 1);
            long second = createCoupon(10, 1);
            for (long id : new long[] {first, second}) {
                requestCoupon(id, "capped").expectStatus().isAccepted();
            }
            MemberStream oldest = several("capped", null, first, second);
            awaitUntil(() -> oldest.statuses().size() == 2);
            MemberStream newer = several("capped", null, first, second);
            awaitUntil(() -> newer.statuses().size() == 2);

            // a third stream of the first coupon: the oldest stream's share of it ends, its second coupon goes on
            MemberStream single = MemberStream.open(port, first, "capped");
            awaitUntil(() -> oldest.events.stream().anyMatch(e -> "replaced".equals(e.event())));
            ServerSentEvent<Map<String, Object>> replaced = oldest.events.stream()
                    .filter(e -> "replaced".equals(e.event()))
                    .findFirst()
                    .orElseThrow();
            assertThat(replaced.data()).containsEntry("couponId", (int) first).containsEntry("reason", "replaced");
            assertThat(oldest.completed).isFalse();

            issue(second, "capped", 903);
            awaitUntil(() -> oldest.completed);
            assertThat(statusesOf(oldest, second).getLast()).containsEntry("status", "ISSUED");
            assertThat(newer.completed).isFalse();
            newer.close();
            single.close();
        }
    }

    @Nested
    class Resuming {

        @Test
        void shouldNotSendAgainTheStateNamedByLastEventIdButEveryChangeAfterIt() {
            long id = createCoupon(10, 1);
            for (String member : List.of("r-ahead-1", "r-ahead-2", "resumer")) {
                requestCoupon(id, member).expectStatus().isAccepted();
            }
            MemberStream first = MemberStream.open(port, id, "resumer");
            awaitUntil(() -> first.statuses().size() == 1);
            String lastEventId = first.first().id();
            assertThat(lastEventId).isEqualTo(id + ":w3");
            first.close();

            MemberStream resumed = MemberStream.open(
                    port, "/api/v1/coupons/" + id + "/issue-requests/me/events", "resumer", lastEventId);
            // the heartbeat (every 2 s here) shows the stream is open; its status at w3 was not sent again
            awaitUntil(() -> resumed.events.stream().anyMatch(e -> e.comment() != null));
            redis.opsForValue().increment(CouponKeys.done(id));
            awaitUntil(() -> !resumed.statuses().isEmpty());
            assertThat(resumed.statuses().getFirst()).containsEntry("position", 2);
            assertThat(resumed.events.stream()
                            .filter(e -> e.id() != null)
                            .findFirst()
                            .orElseThrow()
                            .id())
                    .isEqualTo(id + ":w2");

            // a Last-Event-ID of another state, or one that cannot be read, sends the status at once
            for (String other : List.of(id + ":w3", "garbage", id + 1 + ":w2")) {
                MemberStream again = MemberStream.open(
                        port, "/api/v1/coupons/" + id + "/issue-requests/me/events", "resumer", other);
                awaitUntil(() -> !again.statuses().isEmpty());
                assertThat(again.statuses().getFirst()).containsEntry("position", 2);
                again.close();
            }
            resumed.close();
        }

        @Test
        void shouldSkipOnlyTheCouponsWhoseStateTheClientHasOnAStreamOfSeveral() {
            long first = createCoupon(10, 1);
            long second = createCoupon(10, 1);
            for (long id : new long[] {first, second}) {
                requestCoupon(id, "resume-many").expectStatus().isAccepted();
            }
            redis.opsForHash().put(CouponKeys.result(second), "resume-many", CouponKeys.ISSUED_PREFIX + "77");

            MemberStream resumed = several("resume-many", first + ":w1," + second + ":w1", first, second);
            awaitUntil(() -> resumed.statuses().size() == 1);
            assertThat(resumed.statuses().getFirst())
                    .containsEntry("couponId", (int) second)
                    .containsEntry("status", "ISSUED");
            assertThat(resumed.first().id()).isEqualTo(first + ":w1," + second + ":i77");
            resumed.close();
        }
    }

    @Nested
    class Refusing {

        @Test
        void shouldAnswer404BeforeAnyEventWhenTheMemberNeverAskedForOneOfThem() {
            long asked = createCoupon(10, 1);
            long never = createCoupon(10, 1);
            requestCoupon(asked, "partial").expectStatus().isAccepted();

            client().get()
                    .uri("/api/v1/me/events?coupons={a},{b}", asked, never)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("partial"))
                    .accept(MediaType.TEXT_EVENT_STREAM)
                    .exchange()
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("REQUEST_NOT_FOUND");
        }

        @Test
        void shouldAnswer400ForMissingMalformedOrTooManyCouponsAnd401WithoutToken() {
            StringBuilder eleven = new StringBuilder("1");
            for (int i = 2; i <= 11; i++) {
                eleven.append(',').append(i);
            }
            for (String query : List.of(
                    "",
                    "?coupons=",
                    "?coupons=1,,2",
                    "?coupons=0",
                    "?coupons=042",
                    "?coupons=a",
                    "?coupons=" + eleven)) {
                client().get()
                        .uri("/api/v1/me/events" + query)
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
                    .uri("/api/v1/me/events?coupons=1")
                    .accept(MediaType.TEXT_EVENT_STREAM)
                    .exchange()
                    .expectStatus()
                    .isUnauthorized();
        }
    }

    @Nested
    class Polling {

        @Test
        void shouldSuggestWhenToReadAgainWhileWaitingAndNothingOnceDecided() {
            long id = createCoupon(100, 1);
            for (int i = 1; i <= 40; i++) {
                requestCoupon(id, "poll-" + i).expectStatus().isAccepted();
            }
            // position 40 at 1 per second (or down to half of it before anything was measured): 40 to 80 s to wait,
            // so half of it, at most 30 s
            String far = client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("poll-40"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .returnResult(String.class)
                    .getResponseHeaders()
                    .getFirst("X-Coupon-Poll-After");
            assertThat(Integer.parseInt(far)).isBetween(20, 30);
            // position 1: the least interval, 2 s
            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("poll-1"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectHeader()
                    .valueEquals("X-Coupon-Poll-After", "2");

            redis.opsForHash().put(CouponKeys.result(id), "poll-1", CouponKeys.ISSUED_PREFIX + "5");
            client().get()
                    .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("poll-1"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectHeader()
                    .doesNotExist("X-Coupon-Poll-After");
        }
    }
}
