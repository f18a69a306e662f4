package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
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
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.TestPropertySource;

/**
 * The admission endpoint for an event whose stock is in shards (docs/architecture.md, "Stock shards"), with {@code
 * coupon.shards.max-served} raised as only tests do: each member is placed on their home shard alone, exactly N of a
 * crowd of N + 10% are admitted with nothing left on any shard, a member's position counts those admitted before them
 * on every shard, and an instance that learned a shard count keeps admitting right when an operator changes it before
 * the event opens.
 */
@ApiTest
@TestPropertySource(properties = "coupon.shards.max-served=6")
class ShardedAdmissionApiTest extends ApiTestBase {

    @Autowired
    StringRedisTemplate redis;

    private static Map<String, Object> event(int total, int shards, Instant openAt) {
        return new HashMap<>(Map.of(
                "name",
                "Sharded",
                "totalQuantity",
                total,
                "openAt",
                openAt.truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                10,
                "validDays",
                30,
                "stockShards",
                shards));
    }

    /** Announced already (by default ten minutes before it opens), not open yet. */
    private static Instant inFiveMinutes() {
        return Instant.now().plusSeconds(300);
    }

    private static String member() {
        return "m-" + UUID.randomUUID();
    }

    /** The shard a member holds a place on, for an event of {@code shards}; -1 when on none. */
    private int placedOn(long id, int shards, String member) {
        int found = -1;
        for (int shard = 0; shard < shards; shard++) {
            if (redis.opsForZSet().score(StockShards.queue(StockShards.tag(id, shards, shard)), member) != null) {
                assertThat(found).as("%s holds one place", member).isEqualTo(-1);
                found = shard;
            }
        }
        return found;
    }

    @Test
    void shouldAdmitExactlyNOfACrowdEachOnTheirHomeShardAndCountEveryShardInThePosition() {
        int shards = 4;
        int total = 40;
        long id = createCoupon(event(total, shards, Instant.now().minusSeconds(60)));
        List<String> admitted = new ArrayList<>();
        int soldOut = 0;
        for (int i = 0; i < total + total / 10; i++) {
            String member = member();
            var result = requestCoupon(id, member).expectBody(Map.class).returnResult();
            int status = result.getStatus().value();
            if (status == 202) {
                admitted.add(member);
                // admitted one after another: the position is the arrival among the admitted, whatever the shard
                assertThat(((Number) result.getResponseBody().get("position")).longValue())
                        .as("position of the %dth admitted", admitted.size())
                        .isEqualTo(admitted.size());
                assertThat(placedOn(id, shards, member)).isEqualTo(StockShards.home(member, shards));
            } else {
                assertThat(status).isEqualTo(409);
                assertThat(result.getResponseBody().get("code")).isEqualTo("SOLD_OUT");
                assertThat(placedOn(id, shards, member)).isEqualTo(-1);
                soldOut++;
            }
        }
        assertThat(admitted).hasSize(total);
        assertThat(soldOut).isEqualTo(total / 10);
        assertThat(placedOnShards(id, shards)).isEqualTo(total);
        // no stock left, and none in escrow, on any shard
        for (int shard = 0; shard < shards; shard++) {
            String tag = StockShards.tag(id, shards, shard);
            Map<Object, Object> stock = redis.opsForHash().entries(StockShards.stock(tag));
            long cap = Long.parseLong((String) stock.get("share")) + Long.parseLong((String) stock.get("moved"));
            assertThat(cap)
                    .as("shard %d's cap", shard)
                    .isEqualTo(redis.opsForZSet().zCard(StockShards.queue(tag)));
            assertThat(redis.opsForHash().size(StockShards.escrow(tag))).isZero();
        }
        // asking again: 200, the same position, no second place
        String third = admitted.get(2);
        requestCoupon(id, third)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(3)
                .jsonPath("$.status")
                .isEqualTo("WAITING");
        assertThat(placedOnShards(id, shards)).isEqualTo(total);
    }

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @Test
    void shouldRefuseOthersLocallyOnceSoldOutAndStillAnswerEveryShardsMembers() {
        int shards = 3;
        long id = createCoupon(event(6, shards, Instant.now().minusSeconds(60)));
        List<String> admitted = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            String member = member();
            if (requestCoupon(id, member).returnResult(Void.class).getStatus().value() == 202) {
                admitted.add(member);
            }
        }
        assertThat(admitted).hasSize(6);
        // once this instance holds every shard's queue, a newcomer is refused without Redis, every member answered
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    double before =
                            meters.counter("coupon.admissions.local.refusals").count();
                    requestCoupon(id, member()).expectStatus().isEqualTo(409);
                    assertThat(meters.counter("coupon.admissions.local.refusals")
                                    .count())
                            .isGreaterThan(before);
                });
        for (String member : admitted) {
            requestCoupon(id, member).expectStatus().isOk();
        }
        assertThat(placedOnShards(id, shards)).isEqualTo(6);
    }

    @Test
    void shouldDealAShardAgainWhenItsStockIsMissing() {
        long id = createCoupon(event(40, 4, Instant.now().minusSeconds(60)));
        String member = homedAt(4, 2);
        // a deal that failed part way: shard 2 has no stock, and no shard is marked dealt (a shard lost alone after a
        // deal that completed gets no free stock back: ShardLossDealTest)
        redis.delete(StockShards.stock(StockShards.tag(id, 4, 2)));
        for (int shard = 0; shard < 4; shard++) {
            redis.opsForHash().delete(StockShards.stock(StockShards.tag(id, 4, shard)), "dealt");
        }
        requestCoupon(id, member).expectStatus().isAccepted();
        assertThat(placedOn(id, 4, member)).isEqualTo(2);
        assertThat(redis.opsForHash().get(StockShards.stock(StockShards.tag(id, 4, 2)), "share"))
                .isEqualTo("10");
    }

    @Test
    void shouldAnswerRightWhenTheShardCountChangesBeforeTheEventOpens() {
        long id = createCoupon(event(30, 4, inFiveMinutes()));
        // this instance learns the count of 4 and is told the event is not open yet, on every shard
        notOpen(id, member());
        assertThat(sharded.shards(id)).isEqualTo(4);

        patchCoupon(id, "{\"stockShards\": 2}").expectStatus().isOk();
        // the shards of the old count hold no stock (only the version that reset them) but those that are shards of
        // the new count too: shard 0 (the event's own tag) and any whose tag both counts found, now dealt for 2
        List<String> dealtFor2 = List.of(StockShards.tag(id, 2, 0), StockShards.tag(id, 2, 1));
        for (int shard = 1; shard < 4; shard++) {
            String tag = StockShards.tag(id, 4, shard);
            assertThat(redis.opsForHash().get(StockShards.stock(tag), "share"))
                    .isEqualTo(dealtFor2.contains(tag) ? "15" : null);
        }
        assertThat(redis.opsForHash().get(StockShards.stock(CouponKeys.tag(id)), "shards"))
                .isEqualTo("2");
        assertThat(redis.opsForHash().get(StockShards.stock(CouponKeys.tag(id)), "share"))
                .isEqualTo("15");

        // an instance still at 4: a member at home on shard 0 is told the new count there, one elsewhere finds no
        // stock and asks the event; both are answered, and the instance knows 2 from then on
        // (once this instance's local answer of "not open", good for a second, has lapsed and Redis is asked)
        untilAsked(id, 4, 0, 2);
        sharded.learn(id, 4);
        untilAsked(id, 4, 3, 2);
        assertThat(placedOnShards(id, 4) + placedOnShards(id, 2)).isZero();
    }

    @Test
    void shouldGoBackToTheEventsOwnAdmissionWhenTheCountIsBackToOne() {
        long id = createCoupon(event(10, 3, inFiveMinutes()));
        notOpen(id, member());
        assertThat(sharded.shards(id)).isEqualTo(3);
        patchCoupon(id, "{\"stockShards\": 1}").expectStatus().isOk();
        for (int shard = 0; shard < 3; shard++) {
            assertThat(redis.opsForHash().get(StockShards.stock(StockShards.tag(id, 3, shard)), "share"))
                    .isNull();
        }
        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "shards")).isEqualTo("1");
        untilAsked(id, 3, 1, 1);
    }

    @Autowired
    ShardAdmissions sharded;

    /**
     * Members at home on {@code shard} of {@code shards} ask, each answered "not open", until this instance knows the
     * event's count is {@code now}.
     */
    private void untilAsked(long id, int shards, int shard, int now) {
        await().atMost(Duration.ofSeconds(20))
                .pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> {
                    notOpen(id, homedAt(shards, shard));
                    assertThat(sharded.shards(id)).isEqualTo(now);
                });
    }

    private void notOpen(long id, String member) {
        requestCoupon(id, member)
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("NOT_OPEN");
    }
}
