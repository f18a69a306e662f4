package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.StockShards;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences (seeded, reproducible) of members asking an event of K > 1 stock shards, with instances dying in the
 * middle of transfers (after the give, or after the take) and recoveries run at random, against the real scripts and a
 * plain model of the rules: a member new to the event is admitted exactly while the model has stock left, sold out
 * exactly when it has none; a member asking again gets their first sequence; the caps never sum to more than N, and
 * to exactly N once transfers are recovered.
 */
class ShardStockModelPropertyTest extends ShardRedisTestBase {

    static LongStream seeds() {
        return LongStream.range(1, 41);
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldAgreeWithTheModelWhenMembersAskAndInstancesDieMidTransfer(long seed) {
        Random random = new Random(seed);
        int shards = 2 + random.nextInt(7);
        int total = 1 + random.nextInt(40);
        int pool = total * 2 + 5;
        long coupon = ShardStockTest.newCoupon();
        var redis = new LettuceShardRedis(connection.async());
        var stock = new ShardStock(redis);
        var transfers = new ShardTransfers(redis);
        String[] tags = stock.tags(coupon, shards);
        stock.deal().init(coupon, shards, total).block();

        Map<String, Long> admitted = new HashMap<>();
        for (int step = 0; step < total * 4; step++) {
            String because = "seed " + seed + ", step " + step + ", " + total + " over " + shards + " shards";
            int roll = random.nextInt(100);
            if (roll < 70) {
                String member = "p" + seed + "-" + random.nextInt(pool);
                ShardStock.Result result = stock.admit(coupon, shards, member).block();
                assertThat(result.shard()).isEqualTo(StockShards.home(member, shards));
                if (admitted.containsKey(member)) {
                    assertThat(result.outcome()).as(because).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
                    assertThat(result.sequence()).as(because).isEqualTo(admitted.get(member));
                } else if (admitted.size() < total) {
                    assertThat(result.outcome()).as(because).isEqualTo(ShardStock.Outcome.ADMITTED);
                    admitted.put(member, result.sequence());
                } else {
                    assertThat(result.outcome()).as(because).isEqualTo(ShardStock.Outcome.SOLD_OUT);
                }
            } else if (roll < 80) {
                // an instance dies after the give
                int donor = random.nextInt(shards);
                transfers
                        .give(
                                tags,
                                donor,
                                (donor + 1) % shards,
                                UUID.randomUUID().toString(),
                                1 + random.nextInt(3))
                        .block();
            } else if (roll < 90) {
                // an instance dies after the take
                int donor = random.nextInt(shards);
                int receiver = (donor + 1 + random.nextInt(shards - 1)) % shards;
                String id = UUID.randomUUID().toString();
                long given = transfers
                        .give(tags, donor, receiver, id, 1 + random.nextInt(3))
                        .block();
                if (given > 0) {
                    transfers.take(tags, receiver, id, given).block();
                }
            } else {
                stock.recover(coupon, shards).block();
                List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
                assertThat(looks)
                        .as(because)
                        .allSatisfy(look -> assertThat(look.escrow()).isEmpty());
                assertThat(ShardStockTest.capsInAll(looks)).as(because).isEqualTo(total);
            }
            List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
            assertThat(ShardStockTest.capsInAll(looks)).as(because).isLessThanOrEqualTo(total);
            assertThat(looks.stream().mapToLong(ShardTransfers.Look::admitted).sum())
                    .as(because)
                    .isEqualTo(admitted.size());
            assertThat(looks)
                    .as(because)
                    .allSatisfy(look -> assertThat(look.free()).isNotNegative());
        }
    }
}
