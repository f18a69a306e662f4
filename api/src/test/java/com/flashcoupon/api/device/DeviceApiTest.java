package com.flashcoupon.api.device;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.WriteSnapshot;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/** {@code PUT} and {@code DELETE /api/v1/me/devices/{deviceToken}} (docs/http-api.md). */
@ApiTest
class DeviceApiTest extends ApiTestBase {

    private static final String FCM_TOKEN = "fcm-Tok_en:APA91b" + "x".repeat(140);

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private WebTestClient.ResponseSpec put(String memberId, String token, String body) {
        return client().put()
                .uri("/api/v1/me/devices/" + token)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    private WebTestClient.ResponseSpec delete(String memberId, String token) {
        return client().delete()
                .uri("/api/v1/me/devices/" + token)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(memberId))
                .exchange();
    }

    private List<String> rows(String token) {
        return jdbc.sql("SELECT CONCAT(member_id, '/', platform) FROM member_device WHERE device_token = ?")
                .param(token)
                .query(String.class)
                .list();
    }

    @Nested
    class Registering {

        @Test
        void shouldStoreTheTokenOnceWhenPutTwice() {
            put("dev-1", FCM_TOKEN, "{\"platform\":\"ANDROID\"}").expectStatus().isNoContent();
            put("dev-1", FCM_TOKEN, "{\"platform\":\"ANDROID\"}").expectStatus().isNoContent();

            assertThat(rows(FCM_TOKEN)).containsExactly("dev-1/ANDROID");
        }

        @Test
        void shouldMoveTheTokenWhenAnotherMemberRegistersIt() {
            put("dev-a", "shared-token", "{\"platform\":\"IOS\"}")
                    .expectStatus()
                    .isNoContent();
            put("dev-b", "shared-token", "{\"platform\":\"WEB\"}")
                    .expectStatus()
                    .isNoContent();

            assertThat(rows("shared-token")).containsExactly("dev-b/WEB");
        }
    }

    @Nested
    class Unregistering {

        @Test
        void shouldRemoveTheTokenAndAnswer204AgainWhenAlreadyGone() {
            put("dev-2", "gone-token", "{\"platform\":\"IOS\"}").expectStatus().isNoContent();

            delete("dev-2", "gone-token").expectStatus().isNoContent();
            delete("dev-2", "gone-token").expectStatus().isNoContent();

            assertThat(rows("gone-token")).isEmpty();
        }

        @Test
        void shouldKeepAnotherMembersTokenWhenSomeoneElseDeletesIt() {
            put("dev-owner", "kept-token", "{\"platform\":\"WEB\"}")
                    .expectStatus()
                    .isNoContent();

            delete("dev-stranger", "kept-token").expectStatus().isNoContent();

            assertThat(rows("kept-token")).containsExactly("dev-owner/WEB");
        }
    }

    @Nested
    class Refusing {

        @Test
        void shouldAnswer400AndWriteNothingWhenTheInputIsBad() {
            WriteSnapshot before = WriteSnapshot.take(jdbc, redis);

            for (String body : new String[] {
                "{}",
                "{\"platform\":null}",
                "{\"platform\":\"BLACKBERRY\"}",
                "{\"platform\":\"android\"}",
                "{\"platform\":1}",
                "[]",
                "nope"
            }) {
                put("dev-bad", "fine-token", body)
                        .expectStatus()
                        .isBadRequest()
                        .expectHeader()
                        .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                        .expectBody()
                        .jsonPath("$.code")
                        .isEqualTo("INVALID_REQUEST");
            }
            for (String token : new String[] {"x".repeat(256), "bad+token", "bad!token", "bad~token", "bad,token"}) {
                put("dev-bad", token, "{\"platform\":\"IOS\"}")
                        .expectStatus()
                        .isBadRequest()
                        .expectBody()
                        .jsonPath("$.code")
                        .isEqualTo("INVALID_REQUEST");
                delete("dev-bad", token)
                        .expectStatus()
                        .isBadRequest()
                        .expectBody()
                        .jsonPath("$.code")
                        .isEqualTo("INVALID_REQUEST");
            }
            client().put()
                    .uri("/api/v1/me/devices/fine-token")
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("dev-bad"))
                    .contentType(MediaType.TEXT_PLAIN)
                    .bodyValue("IOS")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(415)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("UNSUPPORTED_MEDIA_TYPE");
            client().put()
                    .uri("/api/v1/me/devices/fine-token")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue("{\"platform\":\"IOS\"}")
                    .exchange()
                    .expectStatus()
                    .isUnauthorized();

            assertThat(WriteSnapshot.take(jdbc, redis)).isEqualTo(before);
        }
    }
}
