package com.flashcoupon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReferenceServerTest {

    static final String SECRET = "a-secret-of-at-least-thirty-two-bytes-for-hs256";

    @Test
    void aMembersTokenIsCheckedAsTheApiChecksIt() {
        Instant now = Instant.parse("2026-11-23T12:00:00Z");
        ReferenceServer.Tokens tokens = new ReferenceServer.Tokens(SECRET, Clock.fixed(now, ZoneOffset.UTC));
        JwtMinter minter = new JwtMinter(SECRET, Clock.fixed(now, ZoneOffset.UTC), Duration.ofMinutes(5));

        assertThat(tokens.member("Bearer " + minter.member("m-1"))).isEqualTo("m-1");
        assertThat(tokens.member("bearer " + minter.member("m-1"))).isEqualTo("m-1");
        assertThat(tokens.member(null)).isNull();
        assertThat(tokens.member("Basic dXNlcjpwYXNz")).isNull();
        assertThat(tokens.member("Bearer not-a-token")).isNull();
        // another key's signature
        JwtMinter stranger = new JwtMinter(
                "another-secret-of-at-least-thirty-two-bytes", Clock.fixed(now, ZoneOffset.UTC), Duration.ofMinutes(5));
        assertThat(tokens.member("Bearer " + stranger.member("m-1"))).isNull();
        // expired beyond the api's 60 s of clock skew, and within it
        JwtMinter old =
                new JwtMinter(SECRET, Clock.fixed(now.minusSeconds(3600), ZoneOffset.UTC), Duration.ofMinutes(5));
        assertThat(tokens.member("Bearer " + old.member("m-1"))).isNull();
        JwtMinter justExpired =
                new JwtMinter(SECRET, Clock.fixed(now.minusSeconds(330), ZoneOffset.UTC), Duration.ofMinutes(5));
        assertThat(tokens.member("Bearer " + justExpired.member("m-1"))).isEqualTo("m-1");
    }

    @Test
    void theScriptsRepliesAreAnsweredAsTheApiAnswersThem() {
        ReferenceServer.Answer admitted = ReferenceServer.answer(7, "m-1", List.of(1L, 12L, 2L, 5L, ""));
        assertThat(admitted.status()).isEqualTo(202);
        // position: sequence 12, 2 done: 10 ahead counting this one; 10 at 5/s: 2 s
        assertThat(admitted.body())
                .isEqualTo("{\"couponId\":7,\"memberId\":\"m-1\",\"status\":\"WAITING\",\"position\":10,"
                        + "\"estimatedWaitSeconds\":2,\"walletCouponId\":null}");
        assertThat(ReferenceServer.answer(7, "m-1", List.of(2L, 12L, 2L, 5L, ""))
                        .status())
                .isEqualTo(200);
        assertThat(ReferenceServer.answer(7, "m-1", List.of(2L, 12L, 20L, 5L, "I:991"))
                        .body())
                .contains("\"status\":\"ISSUED\"")
                .contains("\"walletCouponId\":991");
        assertThat(ReferenceServer.answer(7, "m-1", List.of(2L, 12L, 20L, 5L, "F:EXPIRED"))
                        .body())
                .contains("\"failureReason\":\"EXPIRED\"");
        assertThat(label(ReferenceServer.answer(7, "m-1", List.of(3L, 0L, 0L, 5L, ""))))
                .isEqualTo("409 SOLD_OUT");
        assertThat(label(ReferenceServer.answer(7, "m-1", List.of(4L, 99L, 0L, 5L, ""))))
                .isEqualTo("409 NOT_OPEN");
        assertThat(label(ReferenceServer.answer(7, "m-1", List.of(5L, 0L, 0L, 5L, ""))))
                .isEqualTo("409 NOT_OPEN");
        assertThat(label(ReferenceServer.answer(7, "m-1", List.of(6L, 1L, 400L, 0L, ""))))
                .isEqualTo("429 RATE_LIMITED");
        assertThat(label(ReferenceServer.answer(7, "m-1", List.of(0L, 0L, 0L, 0L, ""))))
                .isEqualTo("404 COUPON_NOT_FOUND");
    }

    @Test
    void pathsAndBurstsAreReadAsTheApiReadsThem() {
        assertThat(ReferenceServer.couponId("42")).isEqualTo(42);
        assertThat(ReferenceServer.couponId("0")).isEqualTo(-1);
        assertThat(ReferenceServer.couponId("-3")).isEqualTo(-1);
        assertThat(ReferenceServer.couponId("x")).isEqualTo(-1);
        assertThat(ReferenceServer.burst(1_000_000)).isEqualTo(2_000_000);
        assertThat(ReferenceServer.burst(0)).isEqualTo(1);
    }

    private static String label(ReferenceServer.Answer answer) {
        return Labels.of(answer.status(), answer.body());
    }
}
