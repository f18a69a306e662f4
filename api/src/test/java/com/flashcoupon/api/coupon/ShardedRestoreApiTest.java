package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * Redis losing an event of several stock shards, through the api against real Redis and MySQL (docs/architecture.md,
 * "Stock shards"): lost whole, every member MySQL decided is answered as before on their home shard, and only the stock
 * MySQL does not know taken is admitted again; one shard lost alone gets its decided members back and no free stock,
 * so the event never admits more than N.
 */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class ShardedRestoreApiTest extends ApiTestBase {

    private static final int SHARDS = 3;

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private long openEvent(int total) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "name",
                "Sharded restore",
                "totalQuantity",
                total,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30,
                "stockShards",
                SHARDS));
        return createCoupon(body);
    }

    private List<String> shardKeys(long couponId, int shard) {
        return StockShards.state(couponId, SHARDS, shard);
    }

    private long cap(long couponId, int shard) {
        String stock = StockShards.stock(StockShards.tag(couponId, SHARDS, shard));
        Object share = redis.opsForHash().get(stock, "share");
        Object moved = redis.opsForHash().get(stock, "moved");
        return Long.parseLong((String) share) + (moved == null ? 0 : Long.parseLong((String) moved));
    }

    private void expectIssued(long couponId, String member) {
        requestCoupon(couponId, member)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED");
    }

    @Test
    void shouldAnswerEveryDecidedMemberOnTheirHomeShardAndAdmitOnlyWhatMySqlDoesNotKnowTaken() {
        long id = openEvent(12);
        List<String> decided = List.of(homedAt(SHARDS, 0), homedAt(SHARDS, 1), homedAt(SHARDS, 2));
        for (int i = 0; i < decided.size(); i++) {
            issuedInMySql(id, decided.get(i), i + 1);
        }
        // six published: three decided, three in Kafka, undecided, when Redis lost the event whole
        publishedInMySql(id, 6, 6);
        List<String> lost = new ArrayList<>(CouponKeys.state(id));
        for (int shard = 0; shard < SHARDS; shard++) {
            lost.addAll(shardKeys(id, shard));
        }
        redis.delete(lost);

        for (String member : decided) {
            expectIssued(id, member);
        }
        int admitted = 0;
        for (int i = 0; i < 12; i++) {
            int status = requestCoupon(id, "n-" + i + "-" + UUID.randomUUID())
                    .returnResult(String.class)
                    .getStatus()
                    .value();
            assertThat(status).isIn(202, 409);
            admitted += status == 202 ? 1 : 0;
        }
        assertThat(admitted).as("12 less the six MySQL knows taken").isEqualTo(6);
        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "base")).isEqualTo("3");
        for (String member : decided) {
            expectIssued(id, member);
        }
        // the six admitted since are published after the six MySQL knew published (sequences 7 to 12), not after the
        // three decided members the shards hold: the published count goes on from 6, the next restore's floor
        Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(jdbc.sql("SELECT published_count FROM coupon WHERE id = ?")
                                .param(id)
                                .query(Long.class)
                                .single())
                        .isEqualTo(12));
    }

    /**
     * Shard 1 lost with its primary while shards 0 and 2 kept theirs: its decided member is answered as before, and
     * it gets back what it held less what it had published (the stock less the others' caps, less its publication
     * mark or its members back, the higher), so newcomers take every coupon no admission still holds.
     */
    @Test
    void shouldPutADecidedMemberBackOnAShardLostAloneAndGiveItBackWhatItHadNotPublished() {
        long id = openEvent(30);
        String onOne = homedAt(SHARDS, 1);
        requestCoupon(id, onOne).expectStatus().isAccepted();
        List<String> elsewhere = List.of(homedAt(SHARDS, 0), homedAt(SHARDS, 2), homedAt(SHARDS, 0));
        for (String member : elsewhere) {
            requestCoupon(id, member).expectStatus().isAccepted();
        }
        issuedInMySql(id, onOne, 1);
        publishedInMySql(id, 4, 4);
        long keptCaps = cap(id, 0) + cap(id, 2);

        // shard 1 lost with its primary; shards 0 and 2 kept theirs
        redis.delete(shardKeys(id, 1));

        expectIssued(id, onOne);
        assertThat(cap(id, 1))
                .as("its decided member back, and what it held beyond its one admission")
                .isEqualTo(30 - keptCaps);
        int admitted = 0;
        for (int i = 0; i < 40; i++) {
            if (requestCoupon(id, "n-" + i + "-" + UUID.randomUUID())
                            .returnResult(String.class)
                            .getStatus()
                            .value()
                    == 202) {
                admitted++;
            }
        }
        assertThat(admitted)
                .as("every coupon no admission holds: 30 less the three kept elsewhere and the one decided")
                .isEqualTo(30 - elsewhere.size() - 1);
        expectIssued(id, onOne);
    }

    /**
     * A member with a result on their home shard and no place in its queue (the worker could not place them after a
     * restore) is answered with it, with stock left (never admitted a second time).
     */
    @Test
    void shouldAnswerADecidedMemberMissingFromTheirShardsQueueWithTheirResult() {
        long id = openEvent(30);
        String member = homedAt(SHARDS, 2);
        requestCoupon(id, homedAt(SHARDS, 0)).expectStatus().isAccepted();
        redis.opsForHash().put(StockShards.result(StockShards.tag(id, SHARDS, 2)), member, "I:78");

        expectIssued(id, member);
        assertThat(redis.opsForZSet().size(StockShards.queue(StockShards.tag(id, SHARDS, 2))))
                .isZero();
    }
}
