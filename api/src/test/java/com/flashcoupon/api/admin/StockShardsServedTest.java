package com.flashcoupon.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/** {@code coupon.shards.max-served} raised (as tests of the sharded path do): up to it is taken, above it refused. */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class StockShardsServedTest extends ApiTestBase {

    private Map<String, Object> event(int shards) {
        return Map.of(
                "name",
                "Sharded",
                "totalQuantity",
                100,
                "openAt",
                Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                10,
                "stockShards",
                shards);
    }

    @Test
    void shouldTakeShardsUpToTheSettingAndRefuseMore() {
        long id = createCoupon(event(6));
        assertThat(jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Integer.class)
                        .single())
                .isEqualTo(6);
        String problem = client().post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(event(7))
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(problem).contains("\"field\":\"stockShards\"").contains("not served yet");
    }
}
