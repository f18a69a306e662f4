package com.flashcoupon.api.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** An event's stock shards (issue 35) in the admin API: given at creation, shown, changed until the event opens. */
@ApiTest
class StockShardsAdminTest extends ApiTestBase {

    /** An event of 100 coupons opening in an hour, one stock shard unless the test adds {@code stockShards}. */
    static Map<String, Object> inAnHour() {
        return new HashMap<>(Map.of(
                "name",
                "Sharded",
                "totalQuantity",
                100,
                "openAt",
                Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                10));
    }

    private int stored(long id) {
        return jdbc.sql("SELECT stock_shards FROM coupon WHERE id = ?")
                .param(id)
                .query(Integer.class)
                .single();
    }

    private long rows() {
        return jdbc.sql("SELECT COUNT(*) FROM coupon").query(Long.class).single();
    }

    @Test
    void shouldKeepOneShardWhenNoneIsGiven() {
        long id = createCoupon(inAnHour());
        assertThat(stored(id)).isEqualTo(1);
        client().get()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.stockShards")
                .isEqualTo(1);
    }

    @Test
    void shouldStoreAndShowOneShardWhenGiven() {
        var body = inAnHour();
        body.put("stockShards", 1);
        postCoupon(body)
                .expectStatus()
                .isCreated()
                .expectBody()
                .jsonPath("$.stockShards")
                .isEqualTo(1);
    }

    @Test
    void shouldRefuseShardCountsOutsideOneToSixtyFourAndWriteNothing() {
        long before = rows();
        for (int shards : new int[] {0, -1, 65, 1000}) {
            var body = inAnHour();
            body.put("stockShards", shards);
            expectProblem(postCoupon(body), 400, "INVALID_REQUEST")
                    .jsonPath("$.errors[0].field")
                    .isEqualTo("stockShards");
        }
        assertThat(rows()).isEqualTo(before);
    }

    /** Served by default: any count the contract allows is taken at creation and by PATCH before the event opens. */
    @Test
    void shouldTakeUpToSixtyFourShardsByDefault() {
        for (int shards : new int[] {2, 6, 64}) {
            var body = inAnHour();
            body.put("stockShards", shards);
            long id = createCoupon(body);
            assertThat(stored(id)).isEqualTo(shards);
        }
        long id = createCoupon(inAnHour());
        patchCoupon(id, "{\"stockShards\":6}").expectStatus().isOk();
        assertThat(stored(id)).isEqualTo(6);
    }

    @Test
    void shouldChangeTheShardsWhenPatchedBeforeTheEventOpens() {
        long id = createCoupon(inAnHour());
        // an event whose shards were set otherwise (the column allows 1 to 64): brought back to one by the api
        jdbc.sql("UPDATE coupon SET stock_shards = 3 WHERE id = ?").param(id).update();
        long version = jdbc.sql("SELECT version FROM coupon WHERE id = ?")
                .param(id)
                .query(Long.class)
                .single();
        patchCoupon(id, "{\"stockShards\":1}")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.stockShards")
                .isEqualTo(1);
        assertThat(stored(id)).isEqualTo(1);
        assertThat(jdbc.sql("SELECT version FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Long.class)
                        .single())
                .isGreaterThan(version);
        expectProblem(patchCoupon(id, "{\"stockShards\":65}"), 400, "INVALID_REQUEST");
    }

    @Test
    void shouldRefuseToChangeTheShardsOnceTheEventOpened() {
        long id = createCoupon(5, 1); // opened a minute ago
        jdbc.sql("UPDATE coupon SET stock_shards = 3 WHERE id = ?").param(id).update();
        expectProblem(patchCoupon(id, "{\"stockShards\":1}"), 409, "ALREADY_OPEN");
        assertThat(stored(id)).isEqualTo(3);
    }

    @Test
    void shouldRefuseAShardCountTheDatabaseDoesNotHold() {
        long id = createCoupon(inAnHour());
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> jdbc.sql("UPDATE coupon SET stock_shards = 65 WHERE id = ?")
                                .param(id)
                                .update())
                .isInstanceOf(org.springframework.dao.DataAccessException.class);
    }
}
