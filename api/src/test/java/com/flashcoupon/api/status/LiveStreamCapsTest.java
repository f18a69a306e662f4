package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.MemberStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.function.client.WebClientResponseException;

/**
 * Security review finding 7 and correctness review F14: live status streams are bounded per instance (over the cap, 503
 * with {@code Retry-After} before any event), per member and coupon (a third stream ends the oldest with a final
 * {@code replaced} event), and in time (a stream ends with a final {@code reconnect} event at its lifetime). No worker
 * runs here, so an admitted member waits for ever: only the caps end their streams.
 */
@ApiTest
@TestPropertySource(
        properties = {"coupon.live.max-streams=4", "coupon.live.max-per-member=2", "coupon.live.max-lifetime=6s"})
class LiveStreamCapsTest extends ApiTestBase {

    @Value("${local.server.port}")
    int port;

    @Autowired
    LiveStatusHub hub;

    private final List<MemberStream> opened = new ArrayList<>();

    @AfterEach
    void closeStreams() {
        opened.forEach(MemberStream::close);
        awaitUntil(() -> hub.openStreams() == 0);
    }

    private MemberStream open(long couponId, String memberId) {
        var stream = MemberStream.open(port, couponId, memberId);
        opened.add(stream);
        return stream;
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition) {
        Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }

    @Test
    void shouldEndTheOldestStreamWithReplacedWhenTheMemberOpensAThird() {
        long id = createCoupon(10, 1);
        requestCoupon(id, "three-tabs").expectStatus().isAccepted();
        MemberStream first = open(id, "three-tabs");
        awaitUntil(first::started);
        MemberStream second = open(id, "three-tabs");
        awaitUntil(second::started);
        MemberStream third = open(id, "three-tabs");
        awaitUntil(third::started);

        awaitUntil(() -> first.completed);
        assertThat(first.last().event()).isEqualTo("replaced");
        assertThat(first.last().data()).containsEntry("reason", "replaced");
        assertThat(second.completed).as("the second stream stays").isFalse();
        assertThat(third.completed).as("the newest stream stays").isFalse();
        assertThat(first.errors).isEmpty();
    }

    @Test
    void shouldRefuseAStreamOverTheInstancesCapWith503AndRetryAfter() {
        long id = createCoupon(10, 1);
        List<MemberStream> held = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            requestCoupon(id, "crowd-" + i).expectStatus().isAccepted();
            MemberStream stream = open(id, "crowd-" + i);
            awaitUntil(stream::started);
            held.add(stream);
        }
        requestCoupon(id, "one-too-many").expectStatus().isAccepted();
        MemberStream refused = open(id, "one-too-many");
        awaitUntil(() -> !refused.errors.isEmpty());
        assertThat(refused.errors.getFirst()).isInstanceOfSatisfying(WebClientResponseException.class, error -> {
            assertThat(error.getStatusCode().value()).isEqualTo(503);
            assertThat(error.getHeaders().getFirst("Retry-After")).isEqualTo("5");
            assertThat(error.getHeaders().getContentType()).isEqualTo(MediaType.APPLICATION_PROBLEM_JSON);
            assertThat(error.getResponseBodyAsString()).contains("\"code\":\"UNAVAILABLE\"");
        });
        assertThat(held).noneMatch(stream -> stream.completed);

        held.getFirst().close();
        awaitUntil(() -> hub.openStreams() == 3);
        MemberStream room = open(id, "one-too-many");
        awaitUntil(room::started);
    }

    @Test
    void shouldEndAStreamWithReconnectAtItsLifetime() {
        long id = createCoupon(10, 1);
        requestCoupon(id, "long-wait").expectStatus().isAccepted();
        MemberStream stream = open(id, "long-wait");
        awaitUntil(stream::started);

        awaitUntil(() -> stream.completed);
        assertThat(stream.last().event()).isEqualTo("reconnect");
        assertThat(stream.last().data()).containsEntry("reason", "reconnect");
        assertThat(stream.errors).isEmpty();
    }
}
