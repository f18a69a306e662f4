package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.test.context.TestPropertySource;

/**
 * The token-free public records are charged to the address's allowance (here one a second, a burst of two): an address
 * that asks faster is answered 429 with {@code Retry-After}, whichever id it asks about.
 */
@ApiTest
@TestPropertySource(properties = {"coupon.ratelimit.address-per-second=1", "coupon.draw.check-every=1h"})
class PublicRecordRateLimitTest extends ApiTestBase {

    @Test
    void shouldChargeThePublicRecordsToTheAddress() {
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            var result = client().get()
                    .uri("/public/v1/coupons/{id}/draw", 900_000 + i)
                    .exchange()
                    .returnResult(String.class);
            statuses.add(result.getStatus().value());
            if (result.getStatus().value() == 429) {
                assertThat(result.getResponseHeaders().getFirst("Retry-After")).isNotBlank();
            }
        }
        assertThat(statuses).startsWith(404).contains(429);
    }
}
