package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
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

    /** A 409 problem with this {@code code}. */
    private void expectRefused(long couponId, String memberId, String code) {
        requestCoupon(couponId, memberId)
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo(code);
    }

    /**
     * At most how many of the requests made since {@code started} can have gone to Redis while a refusal it answered
     * was known locally: one each time the refusal, valid {@link AdmissionGate#VALID_MILLIS} from Redis' answer, ran
     * out. On a fast machine none; on a busy one the bound follows the time the requests took, not a guess.
     */
    private static long redisTripsAtMost(long started) {
        // + 1 ms: the gate's clock counts whole milliseconds
        return ((System.nanoTime() - started) / 1_000_000 + 1) / AdmissionGate.VALID_MILLIS + 1;
    }

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
                // announced now: members see it before it opens (docs/http-api.md, Announcement)
                "announceAt",
                Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                5));
        long started = System.nanoTime();
        requestCoupon(id, "early-0").expectStatus().isEqualTo(409);

        double before = localRefusals();
        for (int i = 1; i <= 10; i++) {
            expectRefused(id, "early-" + i, "NOT_OPEN");
        }
        // the first 409 came from Redis, and a refusal it answered is known for a second from then
        assertThat(localRefusals() - before).isGreaterThanOrEqualTo(10 - (redisTripsAtMost(started) - 1));
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

        expectRefused(id, "after-close", "NOT_OPEN");
        requestCoupon(id, "after-close-2").expectStatus().isEqualTo(409);
    }

    @Test
    void shouldRefuseLocallyWhenSoldOutButStillAnswer200ToAnAdmittedMember() {
        long id = createCoupon(2, 5);
        requestCoupon(id, "first").expectStatus().isAccepted();
        requestCoupon(id, "second").expectStatus().isAccepted();
        expectRefused(id, "late-0", "SOLD_OUT");

        // The queue is loaded in the background after the first sold-out answer; until then Redis keeps answering.
        double before = localRefusals();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            requestCoupon(id, "late-" + System.nanoTime()).expectStatus().isEqualTo(409);
            assertThat(localRefusals()).isGreaterThan(before);
        });
        long started = System.nanoTime();
        for (int i = 1; i <= 10; i++) {
            expectRefused(id, "late-" + i, "SOLD_OUT");
        }
        long redisTrips = redisTripsAtMost(started);
        requestCoupon(id, "first")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(1);
        requestCoupon(id, "second").expectStatus().isOk();
        // at least one local refusal while awaiting, then the ten, less those that found the refusal run out
        assertThat(localRefusals() - before).isGreaterThanOrEqualTo(1 + 10 - redisTrips);

        // Every refusal, local or not, shows in the operator's counter (flushed every second).
        long refused = (long) (localRefusals() - before) + 1;
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(rejectedSoldOut(id)).isGreaterThanOrEqualTo(refused));
    }

    private long rejectedSoldOut(long couponId) {
        Map<?, ?> view = adminGet("/admin/v1/coupons/{id}", couponId);
        return ((Number) ((Map<?, ?>) view.get("stats")).get("rejectedSoldOut")).longValue();
    }
}
