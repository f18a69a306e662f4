package com.flashcoupon.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.StockShards;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.http.MediaType;
import org.springframework.test.context.TestPropertySource;

/** {@code coupon.shards.max-served} raised (as tests of the sharded path do): up to it is taken, above it refused. */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class StockShardsServedTest extends ApiTestBase {

    @Autowired
    ReactiveStringRedisTemplate redis;

    /** The mirror deals the stock over the shards at creation: shares of 17 and 16 that sum to the total. */
    @Test
    void shouldDealTheStockOverEveryShardWhenTheEventIsCreated() {
        long id = createCoupon(event(6));
        long sum = 0;
        for (int shard = 0; shard < 6; shard++) {
            String share = redis.<String, String>opsForHash()
                    .get(StockShards.stock(StockShards.tag(id, 6, shard)), "share")
                    .block();
            assertThat(share).isEqualTo(shard < 4 ? "17" : "16");
            sum += Long.parseLong(share);
        }
        assertThat(sum).isEqualTo(100);
    }

    private static Map<String, Object> event(int shards) {
        Map<String, Object> body = StockShardsAdminTest.inAnHour();
        body.put("stockShards", shards);
        return body;
    }

    @Test
    void shouldTakeShardsUpToTheSettingAndRefuseMore() {
        long id = createCoupon(event(6));
        assertThat(jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Integer.class)
                        .single())
                .isEqualTo(6);
        String problem = postCoupon(event(7))
                .expectStatus()
                .isBadRequest()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        assertThat(problem)
                .contains("\"field\":\"stockShards\"")
                .contains("more stock shards than this deployment allows");
    }

    private String refused(Map<String, Object> body) {
        return postCoupon(body)
                .expectStatus()
                .isBadRequest()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
    }

    private org.springframework.test.web.reactive.server.WebTestClient.ResponseSpec put(
            String uri, long id, Object body) {
        return client().put()
                .uri(uri, id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(body)
                .exchange();
    }

    /** A fair start is served across shards: taken at creation and with PATCH. */
    @Test
    void shouldTakeShardsWithAFairStart() {
        Map<String, Object> drawn = event(3);
        drawn.put("queueing", "RANDOMIZED_START");
        drawn.put("queueingWindowSeconds", 30);
        long drawnId = createCoupon(drawn);
        assertThat(jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                        .param(drawnId)
                        .query(Integer.class)
                        .single())
                .isEqualTo(3);

        Map<String, Object> fair = event(1);
        fair.put("queueing", "RANDOMIZED_START");
        fair.put("queueingWindowSeconds", 30);
        long fairId = createCoupon(fair);
        patchCoupon(fairId, "{\"stockShards\": 2}").expectStatus().isOk();
        assertThat(jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                        .param(fairId)
                        .query(Integer.class)
                        .single())
                .isEqualTo(2);
    }

    /** An eligibility list is served across shards: taken at creation, by PUT .../eligibility and with PATCH. */
    @Test
    void shouldTakeShardsWithAnEligibilityList() {
        Map<String, Object> listed = event(3);
        listed.put("eligibility", Map.of("list", true));
        createCoupon(listed);
        long sharded = createCoupon(event(3));
        put("/admin/v1/coupons/{id}/eligibility", sharded, Map.of("eligibility", Map.of("list", true)))
                .expectStatus()
                .isOk();
        Map<String, Object> withList = event(1);
        withList.put("eligibility", Map.of("list", true));
        long listedId = createCoupon(withList);
        patchCoupon(listedId, "{\"stockShards\": 2}").expectStatus().isOk();
        assertThat(jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                        .param(listedId)
                        .query(Integer.class)
                        .single())
                .isEqualTo(2);
    }
}
