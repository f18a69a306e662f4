package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.MemberStream;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * A member's live stream on an event whose stock is in shards (docs/architecture.md, "Stock shards"): positions fall as
 * members of any shard are done, and the final status comes from the member's home shard when the result event was
 * missed (no result is sent on the topic here: the worker's writes are made by hand, on each member's home shard).
 */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class ShardedLiveStatusTest extends ApiTestBase {

    private static final int SHARDS = 3;

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Value("${local.server.port}")
    int port;

    private static void awaitUntil(java.util.function.BooleanSupplier condition) {
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }

    /** What the worker writes for a member: their result and the done count, on their home shard. */
    private void decide(long id, String member, String result) {
        String tag = StockShards.tag(id, SHARDS, StockShards.home(member, SHARDS));
        redis.opsForHash().put(StockShards.result(tag), member, result);
        redis.opsForValue().increment(StockShards.done(tag));
    }

    @Test
    void shouldFallAsEveryShardsMembersAreDoneAndEndWithTheResultOnTheHomeShard() {
        long id = createCoupon(Map.of(
                "name",
                "Sharded live",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30,
                "stockShards",
                SHARDS));
        List<String> ahead = new ArrayList<>(List.of(homedAt(SHARDS, 0), homedAt(SHARDS, 1), homedAt(SHARDS, 2)));
        String live = homedAt(SHARDS, 2);
        for (String member : ahead) {
            requestCoupon(id, member).expectStatus().isAccepted();
        }
        requestCoupon(id, live).expectStatus().isAccepted();

        MemberStream stream = MemberStream.open(port, id, live);
        awaitUntil(() -> stream.statuses().size() == 1);
        assertThat(stream.statuses().get(0)).containsEntry("status", "WAITING").containsEntry("position", 4);

        // two members ahead done, on shards 0 and 1: the stream's position falls by two
        decide(id, ahead.get(0), CouponKeys.ISSUED_PREFIX + "1");
        decide(id, ahead.get(1), CouponKeys.ISSUED_PREFIX + "2");
        awaitUntil(() ->
                stream.statuses().getLast().get("position") instanceof Number position && position.intValue() == 2);

        // the member's own result, on shard 2, with no result event: the stream ends with it
        decide(id, ahead.get(2), CouponKeys.ISSUED_PREFIX + "3");
        decide(id, live, CouponKeys.ISSUED_PREFIX + "44");
        awaitUntil(() -> stream.completed);
        assertThat(stream.statuses().getLast())
                .containsEntry("status", "ISSUED")
                .containsEntry("walletCouponId", 44);
        assertThat(redis.opsForHash().hasKey(CouponKeys.result(id), live)).isFalse();
    }
}
