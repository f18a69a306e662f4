package com.flashcoupon.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Where stock shards live (docs/architecture.md, "Stock shards"). */
class StockShardsTest {

    /** The first slot of each primary of a cluster {@code redis-cli --cluster create} made with {@code primaries}. */
    private static int primaryOf(int slot, int primaries) {
        double per = (double) StockShards.SLOTS / primaries;
        double cursor = 0;
        for (int primary = 0; primary < primaries; primary++) {
            long last = primary == primaries - 1 ? StockShards.SLOTS - 1 : Math.round(cursor + per - 1);
            if (slot <= last) {
                return primary;
            }
            cursor += per;
        }
        throw new IllegalStateException();
    }

    @Test
    void shouldComputeTheSlotRedisClusterComputes() {
        // CLUSTER KEYSLOT answers of a real Redis (and CRC16/XMODEM's check value for "123456789", 0x31C3)
        assertThat(StockShards.slot("foo")).isEqualTo(12182);
        assertThat(StockShards.slot("bar")).isEqualTo(5061);
        assertThat(StockShards.slot("123456789")).isEqualTo(0x31C3 % 16384);
    }

    @Test
    void shouldKeepTheEventsOwnTagWhenTheEventHasOneShard() {
        assertThat(StockShards.tag(42, 1, 0)).isEqualTo(CouponKeys.tag(42));
        assertThat(StockShards.tag(42, 6, 0)).isEqualTo(CouponKeys.tag(42));
        assertThat(StockShards.home("any-member", 1)).isZero();
    }

    @Test
    void shouldNameShardZerosKeysAsTheEventsOwn() {
        String tag = StockShards.tag(42, 6, 0);
        assertThat(StockShards.queue(tag)).isEqualTo(CouponKeys.queue(42));
        assertThat(StockShards.seq(tag)).isEqualTo(CouponKeys.seq(42));
        assertThat(StockShards.cursor(tag)).isEqualTo(CouponKeys.cursor(42));
        assertThat(StockShards.result(tag)).isEqualTo(CouponKeys.result(42));
        assertThat(StockShards.stats(tag)).isEqualTo(CouponKeys.stats(42));
        assertThat(StockShards.done(tag)).isEqualTo(CouponKeys.done(42));
        assertThat(StockShards.retired(tag)).isEqualTo(CouponKeys.retired(42));
        assertThat(StockShards.draw(tag)).isEqualTo(CouponKeys.draw(42));
        assertThat(StockShards.eligible(tag)).isEqualTo(CouponKeys.eligible(42));
        assertThat(StockShards.wouldRefuse(tag, "list")).isEqualTo(CouponKeys.wouldRefuse(42, "list"));
        // the limits of sharded admissions are keys of their own: status reads charge the event's at their own rate
        assertThat(StockShards.memberLimit(tag, "m-1")).isNotEqualTo(CouponKeys.memberLimit(42, "m-1"));
        assertThat(StockShards.addressLimit(tag, "10.0.0.0")).isNotEqualTo(CouponKeys.addressLimit(42, "10.0.0.0"));
    }

    @Test
    void shouldPutEachShardInAnArcOfItsOwnWhateverTheCoupon() {
        for (int shards : new int[] {2, 3, 6, 7, 64}) {
            for (long coupon = 1; coupon <= 300; coupon++) {
                Set<Long> arcs = new HashSet<>();
                Set<String> tags = new HashSet<>();
                for (int shard = 0; shard < shards; shard++) {
                    String tag = StockShards.tag(coupon, shards, shard);
                    int slot = StockShards.slot(tag.substring(1, tag.length() - 1));
                    arcs.add((long) slot * shards / StockShards.SLOTS);
                    tags.add(tag);
                }
                assertThat(arcs).as("coupon %d, %d shards", coupon, shards).hasSize(shards);
                assertThat(tags).hasSize(shards);
            }
        }
    }

    @Test
    void shouldGiveEachOfThreePrimariesTwoOfSixShards() {
        for (long coupon = 1; coupon <= 2000; coupon++) {
            int[] perPrimary = new int[3];
            for (int shard = 0; shard < 6; shard++) {
                String tag = StockShards.tag(coupon, 6, shard);
                perPrimary[primaryOf(StockShards.slot(tag.substring(1, tag.length() - 1)), 3)]++;
            }
            if (coupon == 1 || perPrimary[0] != 2 || perPrimary[1] != 2 || perPrimary[2] != 2) {
                // shard 0's slot is the event's own; only the one slot where the rounding differs may move it
                int own = StockShards.slot("cpn:" + coupon);
                assertThat(own == 10922 || own == 5461)
                        .as("coupon %d: shards per primary %s", coupon, java.util.Arrays.toString(perPrimary))
                        .isEqualTo(perPrimary[0] != 2 || perPrimary[1] != 2 || perPrimary[2] != 2);
            }
        }
    }

    @Test
    void shouldSpreadMembersOverTheirHomesAndKeepEachMembersHome() {
        int shards = 6;
        int[] homes = new int[shards];
        IntStream.range(0, 60_000).forEach(i -> homes[StockShards.home("member-" + i, shards)]++);
        assertThat(IntStream.of(homes).boxed().toList())
                .allSatisfy(count -> assertThat(count).isBetween(9_500, 10_500));
        assertThat(StockShards.home("member-17", shards)).isEqualTo(StockShards.home("member-17", shards));
        // the documented hash: CRC32 of the UTF-8 id, mod K
        var crc = new java.util.zip.CRC32();
        crc.update("m-1001".getBytes(java.nio.charset.StandardCharsets.UTF_8));
        assertThat(StockShards.home("m-1001", 7)).isEqualTo((int) (crc.getValue() % 7));
    }

    @Test
    void shouldRefuseShardCountsOutsideOneToSixtyFour() {
        assertThatThrownBy(() -> StockShards.tag(1, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StockShards.tag(1, 65, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StockShards.tag(1, 6, 6)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> StockShards.home("m", 0)).isInstanceOf(IllegalArgumentException.class);
    }
}
