package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/** Whatever a request carries, and however it fails, neither its token nor the signing secret reaches the logs. */
@ApiTest
@ExtendWith(OutputCaptureExtension.class)
class SecretsInLogsTest extends ApiTestBase {

    @Test
    void shouldNeverLogTokensOrTheSecretWhenRequestsSucceedOrFail(CapturedOutput output) {
        String member = TestEnvironment.memberToken("log-check");
        String admin = TestEnvironment.adminToken();
        String expired =
                TestEnvironment.token("log-check", List.of(), Instant.now().minusSeconds(60));
        String forged = TestEnvironment.sign(
                "another-secret-that-is-long-enough-0123456789",
                "log-check",
                List.of(),
                Instant.now().plusSeconds(60));

        long id = createCoupon(1, 1);
        requestCoupon(id, "log-check").expectStatus().isAccepted();
        requestCoupon(id, "log-check-2").expectStatus().isEqualTo(409);
        requestCoupon(987_654_321L, "log-check").expectStatus().isNotFound();
        for (String token : List.of(member, admin, expired, forged, "garbage")) {
            client().get()
                    .uri("/admin/v1/coupons/{id}", id)
                    .header("Authorization", "Bearer " + token)
                    .exchange();
        }

        for (String token : List.of(member, admin, expired, forged)) {
            assertThat(output.getAll()).doesNotContain(token).doesNotContain(token.substring(token.lastIndexOf('.')));
        }
        assertThat(output.getAll()).doesNotContain(TestEnvironment.JWT_SECRET);
    }
}
