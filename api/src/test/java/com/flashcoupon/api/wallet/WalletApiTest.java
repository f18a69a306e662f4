package com.flashcoupon.api.wallet;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.WriteSnapshot;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/** {@code GET /api/v1/me/coupons} and {@code POST /api/v1/me/coupons/{id}/use} (docs/http-api.md). */
@ApiTest
class WalletApiTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Value("${local.server.port}")
    int port;

    private long wallet(long couponId, String memberId, String expiresIn) {
        jdbc.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                        + " VALUES (?, ?, 1, NOW(3), NOW(3) + INTERVAL " + expiresIn + ")")
                .params(couponId, memberId)
                .update();
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, memberId)
                .query(Long.class)
                .single();
    }

    private WebTestClient.ResponseSpec use(String memberId, Object walletId, String body) {
        return client().post()
                .uri("/api/v1/me/coupons/" + walletId + "/use")
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    @Nested
    class Listing {

        @Test
        void shouldListTheCallersCouponsNewestFirstWhenAsked() {
            long first = createCoupon(10, 10);
            long second = createCoupon(10, 10);
            long older = wallet(first, "wl-1", "30 DAY");
            long newer = wallet(second, "wl-1", "30 DAY");
            wallet(second, "wl-other", "30 DAY");

            client().get()
                    .uri("/api/v1/me/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("wl-1"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.length()")
                    .isEqualTo(2)
                    .jsonPath("$[0].walletCouponId")
                    .isEqualTo(newer)
                    .jsonPath("$[0].couponId")
                    .isEqualTo(second)
                    .jsonPath("$[0].name")
                    .isEqualTo("Test coupon")
                    .jsonPath("$[0].issuedAt")
                    .exists()
                    .jsonPath("$[0].expiresAt")
                    .exists()
                    .jsonPath("$[0].usedAt")
                    .isEmpty()
                    .jsonPath("$[0].orderId")
                    .isEmpty()
                    .jsonPath("$[1].walletCouponId")
                    .isEqualTo(older);
        }

        @Test
        void shouldAnswerAnEmptyListWhenTheWalletIsEmpty() {
            client().get()
                    .uri("/api/v1/me/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("wl-nobody"))
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .json("[]");
        }
    }

    @Nested
    class Using {

        @Test
        void shouldUseOnceAndRepeatTheSameAnswerWhenTheSameOrderAsksAgain() {
            long walletId = wallet(createCoupon(10, 10), "use-1", "30 DAY");

            use("use-1", walletId, "{\"orderId\":\"o-77\"}")
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.walletCouponId")
                    .isEqualTo(walletId)
                    .jsonPath("$.orderId")
                    .isEqualTo("o-77")
                    .jsonPath("$.usedAt")
                    .exists();
            String usedAt = jdbc.sql("SELECT used_at FROM coupon_wallet WHERE id = ?")
                    .param(walletId)
                    .query(String.class)
                    .single();

            use("use-1", walletId, "{\"orderId\":\"o-77\"}")
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.orderId")
                    .isEqualTo("o-77");
            use("use-1", walletId, "{\"orderId\":\"o-78\"}")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("ALREADY_USED");
            assertThat(jdbc.sql("SELECT CONCAT(used_at, order_id) FROM coupon_wallet WHERE id = ?")
                            .param(walletId)
                            .query(String.class)
                            .single())
                    .isEqualTo(usedAt + "o-77");
        }

        @Test
        void shouldLetExactlyOneOfFiftyConcurrentOrdersWinWhenTheyRace() {
            long walletId = wallet(createCoupon(10, 10), "race", "30 DAY");
            WriteSnapshot before = WriteSnapshot.take(jdbc, redis);
            WebClient racing = WebClient.create("http://127.0.0.1:" + port);
            String token = "Bearer " + TestEnvironment.memberToken("race");

            List<String> answers = Flux.range(1, 50)
                    .flatMap(
                            i -> racing.post()
                                    .uri("/api/v1/me/coupons/{id}/use", walletId)
                                    .header("Authorization", token)
                                    .contentType(MediaType.APPLICATION_JSON)
                                    .bodyValue(Map.of("orderId", "o-" + i))
                                    .exchangeToMono(response -> response.bodyToMono(Map.class)
                                            .map(body -> response.statusCode().value() + ":" + body.get("code"))),
                            50)
                    .collectList()
                    .block(Duration.ofSeconds(60));

            assertThat(answers.stream().collect(Collectors.groupingBy(s -> s, Collectors.counting())))
                    .containsExactlyInAnyOrderEntriesOf(Map.of("200:null", 1L, "409:ALREADY_USED", 49L));
            WriteSnapshot after = WriteSnapshot.take(jdbc, redis);
            assertThat(after.devices()).isEqualTo(before.devices());
            assertThat(after.redisKeys()).isEqualTo(before.redisKeys());
            assertThat(after.wallets()).hasSameSizeAs(before.wallets());
            List<String> changed = IntStream.range(0, after.wallets().size())
                    .filter(i -> !after.wallets().get(i).equals(before.wallets().get(i)))
                    .mapToObj(i -> after.wallets().get(i))
                    .toList();
            assertThat(changed)
                    .singleElement()
                    .asString()
                    .startsWith(walletId + "|")
                    .matches(".*\\|o-\\d+$");
        }

        @Test
        void shouldAnswer404WhenTheCouponIsSomeoneElsesOrUnknown() {
            long walletId = wallet(createCoupon(10, 10), "owner", "30 DAY");
            WriteSnapshot before = WriteSnapshot.take(jdbc, redis);

            use("thief", walletId, "{\"orderId\":\"o-1\"}")
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("WALLET_COUPON_NOT_FOUND");
            use("owner", 987_654_321L, "{\"orderId\":\"o-1\"}")
                    .expectStatus()
                    .isNotFound()
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("WALLET_COUPON_NOT_FOUND");
            assertThat(WriteSnapshot.take(jdbc, redis)).isEqualTo(before);
        }

        @Test
        void shouldAnswerExpiredWhenPastExpiresAt() {
            long walletId = wallet(createCoupon(10, 10), "late", "-1 SECOND");
            WriteSnapshot before = WriteSnapshot.take(jdbc, redis);

            use("late", walletId, "{\"orderId\":\"o-1\"}")
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("EXPIRED");
            assertThat(WriteSnapshot.take(jdbc, redis)).isEqualTo(before);
        }
    }
}
