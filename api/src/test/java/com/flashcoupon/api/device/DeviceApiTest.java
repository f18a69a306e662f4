package com.flashcoupon.api.device;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
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
}
