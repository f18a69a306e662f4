package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.StockShards;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * Admission on a member's home shard checks what admission on an event of one shard checks, in the same one step
 * (shard_admit.lua, against a real Redis): the announcement, the window, the rate limits, the gate's claims and human
 * check, and the event's shard count; a refusal writes no place on any shard.
 */
class ShardAdmissionTest extends ShardRedisTestBase {

    private static final int SHARDS = 4;
    private static final long HOUR = 3_600_000;

    private static long now() {
        return System.currentTimeMillis();
    }

    private static ShardDeal.Settings settings(long version, long openAt, long closeAt, boolean closed) {
        return new ShardDeal.Settings(version, openAt, closeAt, closed, 500, 0, "");
    }

    private static ShardStock.Result admit(long coupon, String member) {
        return stock.admit(coupon, SHARDS, member).block();
    }

    /** Places held on every shard of the event. */
    private static long placed(long coupon) {
        String[] tags = stock.tags(coupon, SHARDS);
        return IntStream.range(0, SHARDS)
                .mapToLong(shard -> sync.zcard(StockShards.queue(tags[shard])))
                .sum();
    }

    private static String member() {
        return "m-" + UUID.randomUUID();
    }

    @Test
    void shouldAnswerTheWindowOnEveryShardAndPlaceNobodyOutsideIt() {
        long coupon = ShardStockTest.newCoupon();
        long openAt = now() + HOUR;
        stock.deal().init(coupon, SHARDS, 100, settings(1, openAt, 0, false)).block();
        ShardStock.Result early = admit(coupon, member());
        assertThat(early.outcome()).isEqualTo(ShardStock.Outcome.NOT_OPEN_YET);
        assertThat(early.detail()).isEqualTo(openAt);
        assertThat(early.rate()).isEqualTo(500);

        // opened, then closed by its closeAt
        stock.deal()
                .init(coupon, SHARDS, 100, settings(2, now() - HOUR, now() - 1, false))
                .block();
        assertThat(admit(coupon, member()).outcome()).isEqualTo(ShardStock.Outcome.CLOSED);

        // an operator's close, then an older snapshot: the close stands
        long open = ShardStockTest.newCoupon();
        stock.deal()
                .init(open, SHARDS, 100, settings(3, now() - HOUR, 0, false))
                .block();
        assertThat(admit(open, member()).outcome()).isEqualTo(ShardStock.Outcome.ADMITTED);
        stock.deal().init(open, SHARDS, 100, settings(4, now() - HOUR, 0, true)).block();
        stock.deal()
                .init(open, SHARDS, 100, settings(3, now() - HOUR, 0, false))
                .block();
        for (int i = 0; i < 20; i++) {
            assertThat(admit(open, member()).outcome()).isEqualTo(ShardStock.Outcome.CLOSED);
        }
        assertThat(placed(coupon)).isZero();
        assertThat(placed(open)).isEqualTo(1);
    }

    @Test
    void shouldAnswerAnEventNotAnnouncedYetAsOneThatDoesNotExist() {
        long coupon = ShardStockTest.newCoupon();
        stock.deal()
                .init(coupon, SHARDS, 100, new ShardDeal.Settings(1, now() - HOUR, 0, false, 500, now() + HOUR, ""))
                .block();
        assertThat(admit(coupon, member()).outcome()).isEqualTo(ShardStock.Outcome.NOT_ANNOUNCED);
        assertThat(placed(coupon)).isZero();
    }

    @Test
    void shouldChargeTheMembersLimitOnceEvenWhenStockIsMovedToTheirHome() {
        long coupon = ShardStockTest.newCoupon();
        // two shards of one coupon each: the second member of shard 0 is admitted by a transfer from shard 1
        stock.deal().init(coupon, 2, 2, settings(1, now() - HOUR, 0, false)).block();
        List<String> homedAtZero = IntStream.range(0, 100)
                .mapToObj(i -> member())
                .filter(member -> StockShards.home(member, 2) == 0)
                .limit(2)
                .toList();
        ShardStock.Request oneBurst = new ShardStock.Request("", List.of("1", "1", "0", "0"), "", "");
        assertThat(stock.admit(coupon, 2, homedAtZero.get(0), oneBurst).block().outcome())
                .isEqualTo(ShardStock.Outcome.ADMITTED);
        ShardStock.Result moved =
                stock.admit(coupon, 2, homedAtZero.get(1), oneBurst).block();
        assertThat(moved.outcome()).isEqualTo(ShardStock.Outcome.ADMITTED);
        assertThat(moved.shard()).isZero();

        // the member's burst is used up: asking again at once is refused, and says which limit
        ShardStock.Result again =
                stock.admit(coupon, 2, homedAtZero.get(1), oneBurst).block();
        assertThat(again.outcome()).isEqualTo(ShardStock.Outcome.RATE_LIMITED);
        assertThat(again.detail()).isEqualTo(1);
        assertThat(again.waitMillis()).isPositive();
    }

    @Test
    void shouldGiveEachShardItsShareOfAnAddresssLimit() {
        assertThat(ShardStock.addressShare(List.of("5", "10", "40", "80"), 4)).containsExactly("5", "10", "10", "20");
        assertThat(ShardStock.addressShare(List.of("5", "10", "2", "4"), 8)).containsExactly("5", "10", "1", "1");
        assertThat(ShardStock.addressShare(List.of("5", "10", "0", "0"), 8)).containsExactly("5", "10", "0", "0");
        assertThat(ShardStock.addressShare(List.of("5", "10", "40", "80"), 1)).containsExactly("5", "10", "40", "80");

        // one address, many members: each shard allows its share of the burst, then refuses with the address's limit
        long coupon = ShardStockTest.newCoupon();
        stock.deal()
                .init(coupon, SHARDS, 1_000, settings(1, now() - HOUR, 0, false))
                .block();
        ShardStock.Request fromOneAddress = new ShardStock.Request(
                "10.0.0.1", ShardStock.addressShare(List.of("0", "0", "1", "8"), SHARDS), "", "");
        long admitted = 0;
        long refusedByAddress = 0;
        for (int i = 0; i < 40; i++) {
            ShardStock.Result result =
                    stock.admit(coupon, SHARDS, member(), fromOneAddress).block();
            if (result.outcome() == ShardStock.Outcome.ADMITTED) {
                admitted++;
            } else if (result.outcome() == ShardStock.Outcome.RATE_LIMITED && result.detail() == 2) {
                refusedByAddress++;
            }
        }
        // a burst of 8 over 4 shards: 2 each (a refill of one a second may add one per shard on a slow machine)
        assertThat(admitted).isBetween(8L, 12L);
        assertThat(refusedByAddress).isEqualTo(40 - admitted);
        assertThat(placed(coupon)).isEqualTo(admitted);
    }

    @Test
    void shouldCheckTheGatesClaimsAndHumanCheckOnTheHomeShard() {
        long coupon = ShardStockTest.newCoupon();
        // the gate as mirror.lua takes it: no list, a proof of work of 8 bits, one claim rule (tier: gold or silver)
        String gate = "0\r\r0\rPOW\r8\rtier\tgold\tsilver\n";
        stock.deal()
                .init(coupon, SHARDS, 100, new ShardDeal.Settings(1, now() - HOUR, 0, false, 500, 0, gate))
                .block();
        String member = member();
        ShardStock.Result bronze = stock.admit(coupon, SHARDS, member, request("\ntier\tbronze\n", "P8"))
                .block();
        assertThat(bronze.outcome()).isEqualTo(ShardStock.Outcome.GATE_REFUSED);
        assertThat(bronze.detail()).isEqualTo(2);
        ShardStock.Result unproven = stock.admit(coupon, SHARDS, member, request("\ntier\tgold\n", ""))
                .block();
        assertThat(unproven.outcome()).isEqualTo(ShardStock.Outcome.GATE_REFUSED);
        assertThat(unproven.detail()).isEqualTo(3);
        ShardStock.Result weak = stock.admit(coupon, SHARDS, member, request("\ntier\tgold\n", "P4"))
                .block();
        assertThat(weak.detail()).isEqualTo(4);
        assertThat(placed(coupon)).isZero();

        ShardStock.Result gold = stock.admit(coupon, SHARDS, member, request("\ntier\tgold\n", "P8"))
                .block();
        assertThat(gold.outcome()).isEqualTo(ShardStock.Outcome.ADMITTED);
        // a member holding a place is answered with it, whatever their claims now, and needs no new proof
        ShardStock.Result again = stock.admit(coupon, SHARDS, member, request("\ntier\tbronze\n", ""))
                .block();
        assertThat(again.outcome()).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
        assertThat(again.sequence()).isEqualTo(gold.sequence());
        assertThat(again.time()).isEqualTo(gold.time());
        String stats = StockShards.stats(stock.tags(coupon, SHARDS)[StockShards.home(member, SHARDS)]);
        assertThat(sync.hget(stats, "refusedClaims")).isEqualTo("1");
        assertThat(sync.hget(stats, "refusedProof")).isEqualTo("2");
        assertThat(sync.hget(stats, "askedAgain")).isEqualTo("1");
    }

    private static ShardStock.Request request(String claims, String proof) {
        return new ShardStock.Request("", ShardStock.Request.PLAIN.limits(), claims, proof);
    }

    @Test
    void shouldTellAnInstanceThatAsksWithAnotherShardCountWhatTheEventHas() {
        long coupon = ShardStockTest.newCoupon();
        stock.deal().init(coupon, 6, 100, settings(1, now() - HOUR, 0, false)).block();
        // shard 0's tag is the event's own whatever the count: a member at home there under 3 shards reaches it
        String member = IntStream.range(0, 100)
                .mapToObj(i -> member())
                .filter(candidate -> StockShards.home(candidate, 3) == 0)
                .findFirst()
                .orElseThrow();
        ShardStock.Result stale = stock.admit(coupon, 3, member).block();
        assertThat(stale.outcome()).isEqualTo(ShardStock.Outcome.RESHARDED);
        assertThat(stale.detail()).isEqualTo(6);
        assertThat(placed(coupon)).isZero();
    }

    @Test
    void shouldAnswerMissingWhenAShardHasItsStockButNoSettings() {
        long coupon = ShardStockTest.newCoupon();
        String member = member();
        String tag = stock.tags(coupon, SHARDS)[StockShards.home(member, SHARDS)];
        // dealt by an api of the version before settings were kept on the shards
        sync.hset(StockShards.stock(tag), java.util.Map.of("share", "25", "moved", "0", "moves", "0", "total", "100"));
        assertThat(admit(coupon, member).outcome()).isEqualTo(ShardStock.Outcome.MISSING);
        assertThat(placed(coupon)).isZero();
    }

    @Test
    void shouldNeverLetAnOlderMirrorUndoANewerCountsDeal() {
        long coupon = ShardStockTest.newCoupon();
        // mirror A read version 1 (six shards), mirror B version 2 (three): B deals first, A's deal comes late
        stock.deal().init(coupon, 3, 90, settings(2, now() - HOUR, 0, false)).block();
        assertThat(stock.deal().reset(coupon, 3, 1).block()).isZero();
        stock.deal().init(coupon, 6, 90, settings(1, now() - HOUR, 0, false)).block();
        String shardZero = StockShards.stock(stock.tags(coupon, 3)[0]);
        assertThat(sync.hget(shardZero, "shards")).isEqualTo("3");
        assertThat(sync.hget(shardZero, "share")).isEqualTo("30");
        // a shard of the older count may share its tag with one of the newer (both counts' searches can find the
        // same {cpn:ID:i:n}): that one holds the newer count's share, the others none
        java.util.Set<String> newer = java.util.Set.of(stock.tags(coupon, 3));
        for (int shard = 1; shard < 6; shard++) {
            String tag = stock.tags(coupon, 6)[shard];
            if (!newer.contains(tag)) {
                assertThat(sync.hget(StockShards.stock(tag), "share"))
                        .as("shard %d of the older count", shard)
                        .isNull();
            }
        }

        // the other way round: B (version 2, three shards) resets A's six, then A's late init deals nothing again
        long other = ShardStockTest.newCoupon();
        stock.deal().init(other, 6, 90, settings(1, now() - HOUR, 0, false)).block();
        stock.deal().reset(other, 6, 2).block();
        stock.deal().init(other, 3, 90, settings(2, now() - HOUR, 0, false)).block();
        stock.deal().init(other, 6, 90, settings(1, now() - HOUR, 0, false)).block();
        for (int shard = 1; shard < 6; shard++) {
            String tag = stock.tags(other, 6)[shard];
            if (java.util.Arrays.asList(stock.tags(other, 3)).contains(tag)) {
                continue;
            }
            assertThat(sync.hget(StockShards.stock(tag), "share")).isNull();
        }
        assertThat(sync.hget(StockShards.stock(stock.tags(other, 3)[0]), "shards"))
                .isEqualTo("3");
        // every member is admitted on a shard of three, none past the 90
        long admitted = IntStream.range(0, 120)
                .mapToObj(i -> stock.admit(other, 3, member()).block())
                .filter(result -> result.outcome() == ShardStock.Outcome.ADMITTED)
                .count();
        assertThat(admitted).isEqualTo(90);
    }
}
