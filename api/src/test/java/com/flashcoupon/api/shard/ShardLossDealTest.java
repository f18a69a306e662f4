package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * The deal after Redis lost an event of K > 1 stock shards (docs/architecture.md, "Stock shards"), against a real
 * Redis: lost whole, each shard gets its members put back plus its part of what MySQL does not know was taken, so the
 * caps sum to N less the admissions known only as a count, and every shard is ready to go on (sequence above every
 * one handed out, cursor past the members decided, done counting them); a shard lost alone beside others that kept
 * theirs gets what it held less what it had published (from the meta's publication marks), or no free stock without
 * them, so the caps and what is known only as a count never sum to more than N.
 */
class ShardLossDealTest extends ShardRedisTestBase {

    private static final int SHARDS = 3;

    private static long caps(long coupon) {
        return ShardStockTest.capsInAll(stock.look(coupon, SHARDS).block());
    }

    /** How many of {@code count} new members the event admits. */
    private static long newcomersAdmitted(long coupon, int count) {
        long admitted = 0;
        for (int i = 0; i < count; i++) {
            if (stock.admit(coupon, SHARDS, "n-" + i + "-" + UUID.randomUUID())
                            .block()
                            .outcome()
                    == ShardStock.Outcome.ADMITTED) {
                admitted++;
            }
        }
        return admitted;
    }

    private static List<String> keys(String[] tags) {
        List<String> keys = new ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
            keys.addAll(StockShards.state(tags[shard], shard));
        }
        return keys;
    }

    @Test
    void shouldDealWhatMySqlDoesNotKnowTakenAfterAWholeLossAndNothingTwice() {
        long coupon = ShardStockTest.newCoupon();
        String[] tags = stock.tags(coupon, SHARDS);
        stock.deal().init(coupon, SHARDS, 30).block();
        assertThat(caps(coupon)).isEqualTo(30);
        for (String tag : tags) {
            assertThat(sync.hget(StockShards.stock(tag), "dealt")).isEqualTo(String.valueOf(SHARDS));
        }

        // Redis lost every shard; the restore put back the four members MySQL decided, on their home shards, with
        // their sequences 1..4; MySQL knows 12 admissions published (8 of them in Kafka, undecided)
        sync.del(keys(tags).toArray(String[]::new));
        sync.del(CouponKeys.seq(coupon), CouponKeys.cursor(coupon), CouponKeys.done(coupon));
        sync.hset(CouponKeys.meta(coupon), "total", "30");
        List<String> decided = IntStream.range(0, 4)
                .mapToObj(i -> "d-" + i + "-" + UUID.randomUUID())
                .toList();
        long[] back = new long[SHARDS];
        for (int i = 0; i < decided.size(); i++) {
            String member = decided.get(i);
            int home = StockShards.home(member, SHARDS);
            back[home]++;
            sync.zadd(StockShards.queue(tags[home]), i + 1, member);
            sync.hset(StockShards.result(tags[home]), member, "I:" + (i + 1));
        }
        stock.deal()
                .init(coupon, SHARDS, 30, 12, ShardDeal.Settings.open(1_000), lost -> Mono.empty(), true)
                .block();

        // free: 30 less the 12 MySQL knows taken, 6 a shard, on top of each shard's members back
        for (int shard = 0; shard < SHARDS; shard++) {
            String tag = tags[shard];
            assertThat(sync.hget(StockShards.stock(tag), "share"))
                    .as("shard %d's share", shard)
                    .isEqualTo(String.valueOf(back[shard] + 6));
            assertThat(sync.get(StockShards.seq(tag))).isEqualTo("12");
            assertThat(sync.get(StockShards.cursor(tag))).isEqualTo(String.valueOf(back[shard]));
            assertThat(sync.get(StockShards.done(tag))).isEqualTo(String.valueOf(back[shard]));
        }
        assertThat(caps(coupon)).isEqualTo(30 - 8);
        assertThat(sync.hget(CouponKeys.meta(coupon), "base")).isEqualTo("8");
        for (String tag : tags) {
            assertThat(sync.hget(StockShards.stock(tag), "restored"))
                    .as("the publications MySQL knew, kept for the worker's second-place check")
                    .isEqualTo("12");
        }

        // dealt again (an operator's change, another instance's mirror): nothing changes
        stock.deal()
                .init(coupon, SHARDS, 30, 12, ShardDeal.Settings.open(1_000))
                .block();
        assertThat(caps(coupon)).isEqualTo(30 - 8);

        // a decided member asks again: the first sequence, no second place; the rest of the stock goes to newcomers
        String again = decided.get(0);
        ShardStock.Result answer = stock.admit(coupon, SHARDS, again).block();
        assertThat(answer.outcome()).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
        long admitted = newcomersAdmitted(coupon, 30);
        assertThat(admitted).isEqualTo(30 - 12);
    }

    @Test
    void shouldGiveAShardLostAloneWithoutPublicationMarksNoFreeStock() {
        long coupon = ShardStockTest.newCoupon();
        String[] tags = stock.tags(coupon, SHARDS);
        stock.deal().init(coupon, SHARDS, 30).block();
        for (int i = 0; i < 9; i++) {
            stock.admit(coupon, SHARDS, "m-" + i + "-" + UUID.randomUUID()).block();
        }
        long keptElsewhere = sync.zcard(StockShards.queue(tags[0])) + sync.zcard(StockShards.queue(tags[2]));

        // shard 1 lost with its primary; the others kept theirs
        sync.del(StockShards.state(tags[1], 1).toArray(String[]::new));
        stock.deal().init(coupon, SHARDS, 30, 9, ShardDeal.Settings.open(1_000)).block();

        assertThat(sync.hget(StockShards.stock(tags[1]), "share")).isEqualTo("0");
        assertThat(caps(coupon)).isEqualTo(20);
        assertThat(sync.hget(StockShards.stock(tags[1]), "restored"))
                .as("a shard lost alone: its cursor fell back, sequences since may be below MySQL's count")
                .isNull();
        long admitted = newcomersAdmitted(coupon, 40);
        // the stock shards 0 and 2 held, and no more
        assertThat(admitted + keptElsewhere).isEqualTo(20);
    }

    /**
     * A deal after a whole loss that died after dealing shard 0 is done again by the next mirror: the shards it had
     * not reached get their share and what MySQL knew published too, and shard 0 keeps what it was dealt.
     */
    @Test
    void shouldKeepWhatMySqlKnewPublishedOnEveryShardWhenADealAfterAWholeLossIsDoneAgain() {
        long coupon = ShardStockTest.newCoupon();
        String[] tags = stock.tags(coupon, SHARDS);
        stock.deal().init(coupon, SHARDS, 30).block();
        sync.del(keys(tags).toArray(String[]::new));
        sync.hset(CouponKeys.meta(coupon), "total", "30");
        // the first deal's instance died after shard 0's share, before the others and before any 'dealt' mark
        sync.hset(StockShards.stock(tags[0]), Map.of("share", "6", "restored", "5"));

        stock.deal()
                .init(coupon, SHARDS, 30, 5, ShardDeal.Settings.open(1_000), lost -> Mono.empty(), true)
                .block();

        assertThat(sync.hget(StockShards.stock(tags[0]), "share")).isEqualTo("6");
        for (String tag : tags) {
            assertThat(sync.hget(StockShards.stock(tag), "restored")).isEqualTo("5");
            assertThat(sync.hget(StockShards.stock(tag), "dealt")).isEqualTo(String.valueOf(SHARDS));
        }
    }

    /**
     * The results repair after a failover (repair_results.lua, on a shard): a result the worker wrote and a failover
     * lost is put back, and when it is the result of a request published before a whole loss whose member holds a
     * second place since, the shard's cap takes that place back once, as the worker does; a member the restore put
     * back (time 0) gives nothing back.
     */
    @Test
    void shouldGiveASecondPlaceBackWhenTheRepairPutsItsResultBack() {
        long coupon = ShardStockTest.newCoupon();
        String tag = stock.tags(coupon, SHARDS)[1];
        sync.hset(StockShards.stock(tag), Map.of("share", "5", "moved", "0", "restored", "10"));
        sync.zadd(StockShards.queue(tag), 11, "asked-again");
        sync.zadd(StockShards.times(tag), 1_700_000_000_000_000.0, "asked-again");
        sync.zadd(StockShards.queue(tag), 3, "put-back");
        sync.zadd(StockShards.times(tag), 0, "put-back");
        String script = com.flashcoupon.contract.LuaScripts.text("scripts/repair_results.lua");
        String[] keys = {
            StockShards.result(tag),
            StockShards.done(tag),
            StockShards.retired(tag),
            StockShards.stock(tag),
            StockShards.queue(tag),
            StockShards.times(tag)
        };
        String[] results = {"asked-again", "I:1", "7", "put-back", "I:2", "3"};

        for (int run = 0; run < 2; run++) {
            sync.eval(script, io.lettuce.core.ScriptOutputType.INTEGER, keys, results);
        }

        assertThat(sync.hget(StockShards.stock(tag), "moved")).isEqualTo("1");
        assertThat(sync.hget(StockShards.stock(tag), "again")).isEqualTo("1");
        assertThat(sync.get(StockShards.done(tag))).isEqualTo("2");
    }

    /**
     * Shards lost alone, one after the other, of an event whose meta keeps each shard's publications: each is dealt
     * its members back plus what it held (the stock less what the others hold: their caps, their escrow, and the places
     * a shard lost before holds for its published members not put back yet) less what it had published. The
     * admissions it took that were never published are free again; those published and not decided are counted in
     * its negative back until the worker puts each back. Newcomers then take exactly what no admission holds.
     */
    @Test
    void shouldGiveEachShardLostAloneWhatItHeldLessWhatItHadPublished() {
        long coupon = ShardStockTest.newCoupon();
        String[] tags = stock.tags(coupon, SHARDS);
        sync.hset(CouponKeys.meta(coupon), "total", "30");
        stock.deal().init(coupon, SHARDS, 30).block();
        for (int shard = 0; shard < SHARDS; shard++) {
            assertThat(sync.hget(CouponKeys.meta(coupon), "pub:" + SHARDS + ":" + shard))
                    .isEqualTo("0");
        }
        // four members at home on each shard, all published (marks first, then cursors); two more each, unpublished
        ShardOrder.Batch batch = fourPublishedOnEachShard(coupon);
        for (int shard = 0; shard < SHARDS; shard++) {
            for (int i = 0; i < 2; i++) {
                stock.admit(coupon, SHARDS, homedAt(SHARDS, shard)).block();
            }
            assertThat(sync.hget(CouponKeys.meta(coupon), "pub:" + SHARDS + ":" + shard))
                    .isEqualTo("4");
        }

        // shard 1 lost alone; the restore puts back the one of its members MySQL decided
        loseAloneAndDeal(coupon, tags, batch, 1);
        assertThat(sync.hget(StockShards.stock(tags[1]), "back"))
                .as("three published, not decided")
                .isEqualTo("-3");
        assertThat(caps(coupon) + 3)
                .as("the caps and what is known only as published come to the stock")
                .isEqualTo(30);

        // then shard 2, while shard 1's three are still not put back: they are held, not free
        loseAloneAndDeal(coupon, tags, batch, 2);
        assertThat(caps(coupon) + 3 + 3).isEqualTo(30);

        long admitted = newcomersAdmitted(coupon, 40);
        assertThat(admitted)
                .as("30 less shard 0's six and the four each lost shard had published")
                .isEqualTo(30 - 6 - 4 - 4);
    }

    /**
     * Sold out on every shard (each marked out), then shard 1 lost alone with admissions it never published: dealt
     * again, it holds free stock, and members at home on shards 0 and 2 reach it (their shards' sold-out marks go with
     * the deal). Before, they were answered sold out in one step and the coupons stayed stranded
     * (ShardLostAloneClusterTest, in its first run: 11 of 600).
     */
    @Test
    void shouldLetEveryHomeReachWhatAShardLostAloneIsDealtAfterTheEventSoldOut() {
        long coupon = ShardStockTest.newCoupon();
        String[] tags = stock.tags(coupon, SHARDS);
        sync.hset(CouponKeys.meta(coupon), "total", "30");
        stock.deal().init(coupon, SHARDS, 30).block();
        // four at home on each shard published, then the rest of the stock admitted and never published
        ShardOrder.Batch batch = fourPublishedOnEachShard(coupon);
        assertThat(newcomersAdmitted(coupon, 40)).isEqualTo(18);
        for (String tag : tags) {
            assertThat(sync.hget(StockShards.stock(tag), "out"))
                    .as("sold out everywhere")
                    .isEqualTo("1");
        }
        long heldByShard1 = sync.zcard(StockShards.queue(tags[1]));

        loseAloneAndDeal(coupon, tags, batch, 1);

        // what shard 1 held less its four published is free, reachable from every home
        long free = heldByShard1 - 4;
        assertThat(free).isPositive();
        long admitted = 0;
        for (int i = 0; i < free; i++) {
            int home = i % 2 == 0 ? 0 : 2;
            if (stock.admit(coupon, SHARDS, homedAt(SHARDS, home)).block().outcome() == ShardStock.Outcome.ADMITTED) {
                admitted++;
            }
        }
        assertThat(admitted)
                .as("members at home on the shards that kept theirs")
                .isEqualTo(free);
        assertThat(stock.admit(coupon, SHARDS, homedAt(SHARDS, 0)).block().outcome())
                .as("and sold out again once it is gone")
                .isEqualTo(ShardStock.Outcome.SOLD_OUT);
    }

    /** Admits four members at home on each shard and publishes them in one batch (marks first, then cursors). */
    private static ShardOrder.Batch fourPublishedOnEachShard(long coupon) {
        for (int shard = 0; shard < SHARDS; shard++) {
            for (int i = 0; i < 4; i++) {
                stock.admit(coupon, SHARDS, homedAt(SHARDS, shard)).block();
            }
        }
        var order = new ShardOrder(new LettuceShardRedis(connection.async()), stock);
        ShardOrder.Batch batch = order.next(coupon, SHARDS, 12).block();
        assertThat(batch.entries()).hasSize(12);
        order.mark(coupon, SHARDS, batch).block();
        order.advance(coupon, SHARDS, batch).block();
        return batch;
    }

    /** Loses one shard's keys and deals it again, its first published member put back as decided. */
    private static void loseAloneAndDeal(long coupon, String[] tags, ShardOrder.Batch batch, int lost) {
        String decided = batch.entries().stream()
                .filter(entry -> entry.shard() == lost)
                .map(ShardOrder.Entry::member)
                .findFirst()
                .orElseThrow();
        sync.del(StockShards.state(tags[lost], lost).toArray(String[]::new));
        stock.deal()
                .init(
                        coupon,
                        SHARDS,
                        30,
                        12,
                        ShardDeal.Settings.open(1_000),
                        // as MemberRestore.putBack writes them (async: the deal runs on the connection's thread)
                        shards -> Mono.fromCompletionStage(
                                        connection.async().zadd(StockShards.queue(tags[lost]), 1, decided))
                                .then(Mono.fromCompletionStage(
                                        connection.async().hset(StockShards.result(tags[lost]), decided, "I:1")))
                                .then(),
                        false)
                .block();
    }

    /**
     * A member the worker puts back on a lost shard after the deal read it and before its share is set (only its
     * queue entry is written while the shard has no stock hash) gets its place in the share and leaves what is known
     * only as a count, in the same step as the share (shard_init.lua).
     */
    @Test
    void shouldGiveAMemberPutBackWhileTheShardWasBeingDealtItsPlace() {
        long coupon = ShardStockTest.newCoupon();
        String tag = stock.tags(coupon, SHARDS)[2];
        sync.zadd(StockShards.queue(tag), 1, "read-by-the-deal");
        sync.zadd(StockShards.queue(tag), 2, "put-back-since");
        String script = com.flashcoupon.contract.LuaScripts.text("scripts/gate_settings.lua")
                + com.flashcoupon.contract.LuaScripts.text("scripts/shard_init.lua");
        // dealt 1 (the member read) + 5 free, with 2 published and not decided (back -1), one member read
        sync.eval(
                script,
                io.lettuce.core.ScriptOutputType.MULTI,
                new String[] {StockShards.stock(tag), StockShards.queue(tag)},
                "6",
                "30",
                "1",
                "3",
                "0",
                "0",
                "0",
                "100",
                "0",
                "",
                "",
                "",
                "-1",
                "1");

        assertThat(sync.hget(StockShards.stock(tag), "share")).isEqualTo("7");
        assertThat(sync.hget(StockShards.stock(tag), "back")).isEqualTo("0");
    }
}
