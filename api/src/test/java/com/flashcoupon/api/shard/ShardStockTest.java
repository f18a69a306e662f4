package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.StockShards;
import io.lettuce.core.RedisClient;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;

/**
 * An event's stock over K shards against a real Redis (docs/architecture.md, "Stock shards"): exactly N admitted to a
 * crowd larger than N, none left on any shard, one per member across shards, and nothing lost or counted twice when an
 * instance dies in the middle of a transfer.
 */
class ShardStockTest extends ShardRedisTestBase {

    /** An event id of this run's own, far from the other tests' (and below the warm-ups'). */
    static long newCoupon() {
        return 8_000_000_000L + ThreadLocalRandom.current().nextLong(1_000_000_000L);
    }

    static long capsInAll(List<ShardTransfers.Look> looks) {
        return looks.stream().mapToLong(look -> look.free() + look.admitted()).sum();
    }

    @Test
    void shouldAdmitExactlyNOfACrowdOfNPlusTenPercentAndLeaveNoStockOnAnyShard() {
        long coupon = newCoupon();
        int shards = 6;
        int total = 1_000;
        stock.deal().init(coupon, shards, total).block();

        List<String> crowd = IntStream.range(0, total + total / 10)
                .mapToObj(i -> "m-" + i + "-" + UUID.randomUUID())
                .toList();
        Map<ShardStock.Outcome, Long> answers = Flux.fromIterable(crowd)
                .flatMap(member -> stock.admit(coupon, shards, member), 64)
                .collect(Collectors.groupingBy(ShardStock.Result::outcome, Collectors.counting()))
                .block();

        assertThat(answers).containsEntry(ShardStock.Outcome.ADMITTED, (long) total);
        assertThat(answers).containsEntry(ShardStock.Outcome.SOLD_OUT, (long) total / 10);
        List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
        assertThat(looks).allSatisfy(look -> {
            assertThat(look.free()).as("shard %d left", look.shard()).isZero();
            assertThat(look.escrow()).as("shard %d's escrow", look.shard()).isEmpty();
            assertThat(look.out()).isTrue();
        });
        assertThat(looks.stream().mapToLong(ShardTransfers.Look::admitted).sum())
                .isEqualTo(total);
        assertThat(capsInAll(looks)).isEqualTo(total);

        // every admitted member is in their home shard's queue, and only there
        String[] tags = stock.tags(coupon, shards);

        for (String member : crowd) {
            int home = StockShards.home(member, shards);
            for (int shard = 0; shard < shards; shard++) {
                if (shard != home) {
                    assertThat(sync.zscore(StockShards.queue(tags[shard]), member))
                            .isNull();
                }
            }
        }
        // every key the shards wrote is one retirement will name (the event's own, or a shard's)
        java.util.Set<String> named = new java.util.HashSet<>(com.flashcoupon.contract.CouponKeys.state(coupon));
        for (int shard = 0; shard < shards; shard++) {
            named.addAll(StockShards.state(tags[shard], shard));
        }
        List<String> written = sync.keys("{cpn:" + coupon + "*");
        assertThat(written).isNotEmpty().allSatisfy(key -> assertThat(named).contains(key));
        // asking again: the same sequence on the same shard, not a second place
        String admitted = crowd.stream()
                .filter(member ->
                        sync.zscore(StockShards.queue(tags[StockShards.home(member, shards)]), member) != null)
                .findFirst()
                .orElseThrow();
        int home = StockShards.home(admitted, shards);
        ShardStock.Result again = stock.admit(coupon, shards, admitted).block();
        assertThat(again.outcome()).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
        assertThat(again.shard()).isEqualTo(home);
        assertThat(again.sequence())
                .isEqualTo(sync.zscore(StockShards.queue(tags[home]), admitted).longValue());
    }

    /** Members all of one home: that shard runs out at once, and every other shard's stock still goes to them. */
    @Test
    void shouldAdmitMembersWhoseHomeIsOutWhileAnotherShardHoldsStockAndSaySoldOutOnlyWhenAllAreOut() {
        long coupon = newCoupon();
        int shards = 4;
        int total = 10; // shares 3, 3, 2, 2
        stock.deal().init(coupon, shards, total).block();
        List<String> sameHome = IntStream.range(0, 1_000)
                .mapToObj(i -> "h-" + i)
                .filter(member -> StockShards.home(member, shards) == 2)
                .limit(total + 3)
                .toList();

        for (int i = 0; i < total; i++) {
            assertThat(stock.admit(coupon, shards, sameHome.get(i)).block().outcome())
                    .as("member %d of one home, %d of %d coupons", i, i + 1, total)
                    .isEqualTo(ShardStock.Outcome.ADMITTED);
        }
        for (int i = total; i < total + 3; i++) {
            assertThat(stock.admit(coupon, shards, sameHome.get(i)).block().outcome())
                    .isEqualTo(ShardStock.Outcome.SOLD_OUT);
        }
        List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
        assertThat(looks.get(2).admitted()).isEqualTo(total);
        assertThat(looks).allSatisfy(look -> assertThat(look.free()).isZero());
        // another home's member is told sold out at once too: every shard is marked
        String other = IntStream.range(0, 100)
                .mapToObj(i -> "o-" + i)
                .filter(member -> StockShards.home(member, shards) == 0)
                .findFirst()
                .orElseThrow();
        assertThat(stock.admit(coupon, shards, other).block().outcome()).isEqualTo(ShardStock.Outcome.SOLD_OUT);
    }

    /** An instance dies right after the donor gave: the amount is in no cap (never more than N) until recovered. */
    @Test
    void shouldPassNoCouponAndLoseNoneWhenAnInstanceDiesAfterTheGive() {
        long coupon = newCoupon();
        int shards = 3;
        int total = 30;
        stock.deal().init(coupon, shards, total).block();
        long given = stock.giveOnly(coupon, shards, 0, 1, 4).block();
        assertThat(given).isEqualTo(4);

        List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
        assertThat(capsInAll(looks))
                .as("the caps while the transfer is in escrow")
                .isEqualTo(total - given);
        assertThat(looks.get(0).escrow()).hasSize(1);

        // the crowd still gets every coupon: the sold-out check completes the dead instance's transfer first
        long admitted = Flux.range(0, total + 5)
                .flatMap(i -> stock.admit(coupon, shards, "c-" + i), 8)
                .filter(result -> result.outcome() == ShardStock.Outcome.ADMITTED)
                .count()
                .block();
        assertThat(admitted).isEqualTo(total);
        looks = stock.look(coupon, shards).block();
        assertThat(capsInAll(looks)).isEqualTo(total);
        assertThat(looks).allSatisfy(look -> assertThat(look.escrow()).isEmpty());
    }

    /** An instance dies after the take, before the settle: recovering takes nothing twice. */
    @Test
    void shouldCountATransferOnceWhenItIsCompletedAgainAfterItsTake() {
        long coupon = newCoupon();
        int shards = 3;
        int total = 30;
        stock.deal().init(coupon, shards, total).block();
        String[] tags = stock.tags(coupon, shards);
        var transfers = new ShardTransfers(new LettuceShardRedis(connection.async()));
        String id = UUID.randomUUID().toString();
        long given = transfers.give(tags, 1, 2, id, 3).block();
        assertThat(transfers.take(tags, 2, id, given).block()).isEqualTo(1);
        assertThat(capsInAll(stock.look(coupon, shards).block())).isEqualTo(total);

        assertThat(stock.recover(coupon, shards).block()).isEqualTo(1);
        assertThat(transfers.take(tags, 2, id, given).block())
                .as("a take run again")
                .isZero();
        List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
        assertThat(capsInAll(looks)).isEqualTo(total);
        assertThat(looks).allSatisfy(look -> assertThat(look.escrow()).isEmpty());
        assertThat(looks.get(2).free()).isEqualTo(10 + given);
        assertThat(looks.get(1).free()).isEqualTo(10 - given);
    }

    @Test
    void shouldDealTheStockOnceWhateverTheTransfersSince() {
        long coupon = newCoupon();
        stock.deal().init(coupon, 3, 10).block(); // 4, 3, 3
        var transfers = new ShardTransfers(new LettuceShardRedis(connection.async()));
        String[] tags = stock.tags(coupon, 3);
        String id = UUID.randomUUID().toString();
        long given = transfers.give(tags, 0, 1, id, 2).block();
        transfers.complete(tags, 0, 1, id, given, 0).block();
        stock.deal().init(coupon, 3, 10).block();
        List<ShardTransfers.Look> looks = stock.look(coupon, 3).block();
        assertThat(looks.stream().map(ShardTransfers.Look::free).toList()).containsExactly(2L, 5L, 3L);
    }

    /**
     * With replica waits, a transfer whose give has not reached the replicas is not taken: a failover could undo the
     * give after the take counted it. The member is neither admitted nor told sold out; once the replicas are back,
     * the transfer completes and every coupon is still there.
     */
    @Test
    void shouldNeitherAdmitNorSaySoldOutWhileATransferCannotReachTheReplicas() {
        long coupon = newCoupon();
        int shards = 2;
        int total = 4; // 2 and 2
        var replicasUp = new java.util.concurrent.atomic.AtomicBoolean(false);
        var plain = new LettuceShardRedis(connection.async());
        ShardStock.Redis redis = new ShardStock.Redis() {
            @Override
            public reactor.core.publisher.Mono<List<Object>> eval(
                    com.flashcoupon.api.redis.ScriptConnection.Script script, String[] keys, String... args) {
                return plain.eval(script, keys, args);
            }

            @Override
            public reactor.core.publisher.Mono<Boolean> replicated(String key, long since) {
                return reactor.core.publisher.Mono.just(replicasUp.get());
            }
        };
        var waiting = new ShardStock(redis);
        waiting.deal().init(coupon, shards, total).block();
        List<String> homeZero = IntStream.range(0, 200)
                .mapToObj(i -> "w-" + i)
                .filter(member -> StockShards.home(member, shards) == 0)
                .limit(3)
                .toList();
        assertThat(waiting.admit(coupon, shards, homeZero.get(0)).block().outcome())
                .isEqualTo(ShardStock.Outcome.ADMITTED);
        assertThat(waiting.admit(coupon, shards, homeZero.get(1)).block().outcome())
                .isEqualTo(ShardStock.Outcome.ADMITTED);
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> waiting.admit(coupon, shards, homeZero.get(2)).block())
                .isInstanceOf(ShardStock.Unsettled.class);
        List<ShardTransfers.Look> looks = waiting.look(coupon, shards).block();
        assertThat(capsInAll(looks)).isLessThan(total);
        assertThat(looks.get(1).escrow()).hasSize(1);

        replicasUp.set(true);
        assertThat(waiting.admit(coupon, shards, homeZero.get(2)).block().outcome())
                .isEqualTo(ShardStock.Outcome.ADMITTED);
        // the transfer left in escrow is still there, in no cap, until a recovery completes it
        assertThat(capsInAll(waiting.look(coupon, shards).block())).isLessThan(total);
        assertThat(waiting.recover(coupon, shards).block()).isEqualTo(1);
        looks = waiting.look(coupon, shards).block();
        assertThat(capsInAll(looks)).isEqualTo(total);
        assertThat(looks).allSatisfy(look -> assertThat(look.escrow()).isEmpty());
    }

    /**
     * Three api instances (each its own connection, donor hints and sold-out check) admit one crowd together, while a
     * fourth keeps dying in the middle of transfers (gives left in escrow): exactly N admitted, and nothing left free
     * or in escrow once the last sold-out check ran.
     */
    @Test
    void shouldAdmitExactlyNWhenThreeInstancesShareTheCrowdAndAFourthKeepsDyingMidTransfer() {
        long coupon = newCoupon();
        int shards = 5;
        int total = 600;
        List<RedisClient> clients = new java.util.ArrayList<>();
        List<ShardStock> instances = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                RedisClient one = RedisClient.create(TestEnvironment.REDIS_URL);
                clients.add(one);
                instances.add(new ShardStock(new LettuceShardRedis(one.connect().async())));
            }
            instances.get(0).deal().init(coupon, shards, total).block();
            var dying = new java.util.concurrent.atomic.AtomicBoolean(true);
            var killer = Flux.range(0, 10_000)
                    .concatMap(i -> stock.giveOnly(coupon, shards, i % shards, (i + 1) % shards, 2))
                    .takeWhile(given -> dying.get())
                    .then()
                    .subscribeOn(reactor.core.scheduler.Schedulers.single());
            var crowd = Flux.range(0, total + total / 10)
                    .flatMap(i -> instances.get(i % 3).admit(coupon, shards, "x-" + i + "-" + UUID.randomUUID()), 48)
                    .collect(Collectors.groupingBy(ShardStock.Result::outcome, Collectors.counting()))
                    .doFinally(signal -> dying.set(false));
            Map<ShardStock.Outcome, Long> answers = reactor.core.publisher.Mono.zip(crowd, killer.thenReturn(true))
                    .block()
                    .getT1();

            assertThat(answers).containsEntry(ShardStock.Outcome.ADMITTED, (long) total);
            assertThat(answers).containsEntry(ShardStock.Outcome.SOLD_OUT, (long) total / 10);
            List<ShardTransfers.Look> looks = stock.look(coupon, shards).block();
            assertThat(looks.stream().mapToLong(ShardTransfers.Look::admitted).sum())
                    .isEqualTo(total);
            assertThat(looks).allSatisfy(look -> {
                assertThat(look.free()).isZero();
                assertThat(look.escrow()).isEmpty();
            });
            assertThat(capsInAll(looks)).isEqualTo(total);
        } finally {
            clients.forEach(RedisClient::shutdown);
        }
    }

    /**
     * Primaries that share a clock (a cluster on one machine, or clocks in step) can admit two members in the same
     * microsecond: the drainer publishes the lower shard first, and each one's position counts exactly the members
     * published before it (a position read counted neither of them ahead of the other before).
     */
    @Test
    void shouldPlaceAdmissionsOfOneMicrosecondOnSeveralShardsInTheOrderTheyArePublished() {
        long coupon = newCoupon();
        int shards = 3;
        stock.deal().init(coupon, shards, 10).block();
        String[] tags = stock.tags(coupon, shards);
        for (int shard = shards - 1; shard >= 0; shard--) {
            String member = "same-us-" + shard;
            sync.zadd(StockShards.queue(tags[shard]), 1, member);
            sync.zadd(StockShards.times(tags[shard]), 1_000_000, member);
        }
        var redis = new LettuceShardRedis(connection.async());
        ShardOrder.Batch batch =
                new ShardOrder(redis, stock).next(coupon, shards, 10).block();
        assertThat(batch.entries()).extracting(ShardOrder.Entry::shard).containsExactly(0, 1, 2);
        var positions = new ShardPositions(redis, stock);
        for (int i = 0; i < batch.entries().size(); i++) {
            ShardOrder.Entry entry = batch.entries().get(i);
            assertThat(positions
                            .ahead(coupon, shards, entry.shard(), entry.time())
                            .block())
                    .as("members published before shard %d's", entry.shard())
                    .isEqualTo(i);
        }
    }

    /**
     * The sold-out mark answers only once a shard has no room: a place the worker gives back to a shard after a restore
     * (a member put back, or one holding a second place) goes to the next member at home there, where the mark made it
     * unreachable before; a member at home on another shard is still told sold out at once.
     */
    @Test
    void shouldAdmitOnAShardMarkedSoldOutOnceAPlaceComesBackToIt() {
        long coupon = newCoupon();
        int shards = 3;
        stock.deal().init(coupon, shards, 3).block();
        ShardStock.Outcome last = null;
        for (int i = 0; i < 30 && last != ShardStock.Outcome.SOLD_OUT; i++) {
            last = stock.admit(coupon, shards, "out-" + i + "-" + UUID.randomUUID())
                    .block()
                    .outcome();
        }
        assertThat(last).isEqualTo(ShardStock.Outcome.SOLD_OUT);
        String[] tags = stock.tags(coupon, shards);
        for (String tag : tags) {
            assertThat(sync.hget(StockShards.stock(tag), "out")).isEqualTo("1");
        }

        sync.hincrby(StockShards.stock(tags[1]), "moved", 1);

        assertThat(stock.admit(coupon, shards, homedAt(shards, 1)).block().outcome())
                .isEqualTo(ShardStock.Outcome.ADMITTED);
        assertThat(stock.admit(coupon, shards, homedAt(shards, 1)).block().outcome())
                .isEqualTo(ShardStock.Outcome.SOLD_OUT);
        assertThat(stock.admit(coupon, shards, homedAt(shards, 2)).block().outcome())
                .isEqualTo(ShardStock.Outcome.SOLD_OUT);
    }
}
