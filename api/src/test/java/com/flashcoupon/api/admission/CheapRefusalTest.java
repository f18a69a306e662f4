package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;

/** Refusals of a finished or future event are answered without Redis; anything that could succeed still asks it. */
@ApiTest
class CheapRefusalTest extends ApiTestBase {

    @Autowired
    MeterRegistry meters;

    private double localRefusals() {
        return meters.counter("coupon.admissions.local.refusals").count();
    }

    @Test
    void shouldRefuseLocallyWhenNotOpenYet() {
        long id = createCoupon(Map.of(
                "name",
                "Later",
                "totalQuantity",
                5,
                "openAt",
                Instant.now()
                        .plus(1, ChronoUnit.HOURS)
                        .truncatedTo(ChronoUnit.SECONDS)
                        .toString(),
                "issueRatePerSecond",
                5));
        requestCoupon(id, "early-0").expectStatus().isEqualTo(409);

        double before = localRefusals();
        for (int i = 1; i <= 10; i++) {
            requestCoupon(id, "early-" + i)
                    .expectStatus()
                    .isEqualTo(409)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("NOT_OPEN");
        }
        assertThat(localRefusals() - before).isGreaterThanOrEqualTo(8);
    }

    @Test
    void shouldLearnWithinASecondWhenAnOperatorCloses() throws InterruptedException {
        long id = createCoupon(10, 5);
        requestCoupon(id, "before-close").expectStatus().isAccepted();
        client().post()
                .uri("/admin/v1/coupons/{id}/close", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk();

        requestCoupon(id, "after-close")
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("NOT_OPEN");
        requestCoupon(id, "after-close-2").expectStatus().isEqualTo(409);
    }
}
