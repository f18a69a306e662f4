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

    @org.springframework.beans.factory.annotation.Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

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

    /**
     * A member keeps at most 20 devices (the default): the 21st removes the least recently registered. Before, nothing
     * bounded them, and one result was pushed to every one.
     */
    @Nested
    class Capping {

        /** Twenty of the member's devices, registered 1 to 20 minutes ago: {@code <member>-01} the newest. */
        private void twentyDevices(String member) {
            for (int i = 1; i <= 20; i++) {
                jdbc.sql("INSERT INTO member_device (device_token, member_id, platform, created_at, updated_at)"
                                + " VALUES (?, ?, 'ANDROID', NOW(3) - INTERVAL ? MINUTE, NOW(3) - INTERVAL ? MINUTE)")
                        .params(String.format("%s-%02d", member, i), member, i, i)
                        .update();
            }
        }

        private List<String> tokensOf(String member) {
            return jdbc.sql("SELECT device_token FROM member_device WHERE member_id = ? ORDER BY device_token")
                    .param(member)
                    .query(String.class)
                    .list();
        }

        @Test
        void shouldRemoveTheLeastRecentlyRegisteredDeviceWhenOneMoreIsRegistered() {
            twentyDevices("cap-1");
            double removedBefore = counted("coupon.devices.removed");

            put("cap-1", "cap-1-new", "{\"platform\":\"IOS\"}").expectStatus().isNoContent();

            List<String> tokens = tokensOf("cap-1");
            assertThat(tokens)
                    .hasSize(20)
                    .contains("cap-1-new", "cap-1-01", "cap-1-19")
                    .doesNotContain("cap-1-20");
            assertThat(counted("coupon.devices.removed") - removedBefore).isEqualTo(1);
        }

        @Test
        void shouldCountARegistrationAgainAsRecentAndKeepThatDevice() {
            twentyDevices("cap-2");

            // the oldest, registered again (the app started on that phone): now the newest
            put("cap-2", "cap-2-20", "{\"platform\":\"ANDROID\"}")
                    .expectStatus()
                    .isNoContent();
            put("cap-2", "cap-2-new", "{\"platform\":\"WEB\"}").expectStatus().isNoContent();

            assertThat(tokensOf("cap-2"))
                    .hasSize(20)
                    .contains("cap-2-20", "cap-2-new")
                    .doesNotContain("cap-2-19");
        }

        @Test
        void shouldMoveATokenToItsNewOwnerWithinTheNewOwnersCapAndCountTheMove() {
            twentyDevices("cap-3");
            put("cap-previous", "cap-shared", "{\"platform\":\"IOS\"}")
                    .expectStatus()
                    .isNoContent();
            double movedBefore = counted("coupon.devices.moved");

            put("cap-3", "cap-shared", "{\"platform\":\"IOS\"}").expectStatus().isNoContent();

            assertThat(rows("cap-shared")).containsExactly("cap-3/IOS");
            assertThat(tokensOf("cap-3")).hasSize(20).contains("cap-shared").doesNotContain("cap-3-20");
            assertThat(tokensOf("cap-previous")).isEmpty();
            assertThat(counted("coupon.devices.moved") - movedBefore).isEqualTo(1);
        }
    }

    private double counted(String name) {
        var counter = meters.find(name).counter();
        return counter == null ? 0 : counter.count();
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
