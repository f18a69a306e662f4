package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.ScriptConnection;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;

/**
 * An admission's place across shards from what the instance saw of the other shards (pure logic: a stand-in Redis
 * that answers every exact read with "one ahead, none done" on each shard and counts the calls).
 */
class ShardPositionsTest {

    private static final int SHARDS = 3;
    private static final long COUPON = 7;

    private final AtomicInteger calls = new AtomicInteger();
    private final ShardStock.Redis redis = new ShardStock.Redis() {
        @Override
        public Mono<List<Object>> eval(ScriptConnection.Script script, String[] keys, String... args) {
            calls.incrementAndGet();
            return Mono.just(List.of(1L, 1L, 0L));
        }
    };
    private final ShardPositions positions = new ShardPositions(redis, new ShardStock(redis));

    /** The members done, all on shard 0 (the others none). */
    private static long[] spread(long done, int shards) {
        long[] byShard = new long[shards];
        byShard[0] = done;
        return byShard;
    }

    private static ShardOrder.Batch tick(long done, long[] admitted, long[] clocks) {
        return new ShardOrder.Batch(
                List.of(),
                0,
                0,
                0,
                0,
                done,
                0,
                0,
                admitted,
                clocks,
                0,
                0,
                new long[admitted.length],
                spread(done, admitted.length));
    }

    @Test
    void shouldPlaceAnAdmissionFromFreshSightsOfTheOtherShardsWithoutACall() {
        positions.saw(COUPON, tick(4, new long[] {10, 20, 30}, new long[] {1_000_000, 1_000_000, 1_000_000}));
        // admitted on shard 1 at 1.05 s after 25 others there: 10 + 25 + 30 ahead, 4 done
        ShardPositions.Place place =
                positions.admitted(COUPON, SHARDS, 1, 25, 1_050_000, -1).block();
        assertThat(place).isEqualTo(new ShardPositions.Place(65, 4));
        assertThat(calls).hasValue(0);

        // the admission's own sight counts for the next member of another shard: shard 1 now holds 26
        ShardPositions.Place next =
                positions.admitted(COUPON, SHARDS, 2, 30, 1_060_000, -1).block();
        assertThat(next).isEqualTo(new ShardPositions.Place(10 + 26 + 30, 4));
        assertThat(calls).hasValue(0);
    }

    @Test
    void shouldReadExactlyWhenASightIsStaleOrNothingIsKnownOfWhatIsDone() {
        // never ticked: done unknown, so the place is read (a call per shard)
        positions.admitted(COUPON, SHARDS, 0, 0, 1_000_000, -1).block();
        assertThat(calls).hasValue(SHARDS);

        positions.saw(COUPON, tick(0, new long[] {1, 1, 1}, new long[] {1_000_000, 1_000_000, 1_000_000}));
        calls.set(0);
        // a second later by the shards' clocks: the sights of shards 1 and 2 are too old to count
        ShardPositions.Place place = positions
                .admitted(COUPON, SHARDS, 0, 5, 1_000_000 + ShardPositions.FRESH_MICROS + 1, -1)
                .block();
        assertThat(calls).hasValue(SHARDS);
        assertThat(place).isEqualTo(new ShardPositions.Place(SHARDS, 0));
    }

    @Test
    void shouldKeepTheLatestSightOfEachShard() {
        positions.saw(COUPON, tick(0, new long[] {50, 50, 50}, new long[] {2_000_000, 2_000_000, 2_000_000}));
        // an older sight (a reply that arrived late) does not replace a newer one
        positions.saw(COUPON, tick(0, new long[] {40, 40, 40}, new long[] {1_900_000, 1_900_000, 1_900_000}));
        assertThat(positions
                        .admitted(COUPON, SHARDS, 0, 50, 2_010_000, -1)
                        .block()
                        .ahead())
                .isEqualTo(150);
        assertThat(calls).hasValue(0);
    }

    @Test
    void shouldCountAnotherShardAtTheAdmissionsTimeBetweenTheSightsAroundIt() {
        positions.saw(COUPON, tick(0, new long[] {0, 100, 40}, new long[] {1_000_000, 1_000_000, 1_000_000}));
        // replies of admissions made after the member's came first: sights newer than the admission
        positions.saw(COUPON, tick(0, new long[] {0, 200, 80}, new long[] {1_100_000, 1_100_000, 1_100_000}));
        // admitted on shard 0 at 1.05 s: halfway between the sights, 150 on shard 1 and 60 on shard 2, not 200 and 80
        assertThat(positions.admitted(COUPON, SHARDS, 0, 7, 1_050_000, -1).block())
                .isEqualTo(new ShardPositions.Place(7 + 150 + 60, 0));
        // at the time of a sight: that sight's count
        assertThat(positions
                        .admitted(COUPON, SHARDS, 0, 8, 1_100_000, -1)
                        .block()
                        .ahead())
                .isEqualTo(8 + 200 + 80);
        assertThat(calls).hasValue(0);
    }

    @Test
    void shouldTakeTheOldestSightWhenEveryKeptSightIsNewerThanTheAdmission() {
        for (int i = 0; i < ShardPositions.SIGHTS + 5; i++) {
            positions.saw(
                    COUPON, tick(0, new long[] {i, i, i}, new long[] {2_000_000 + i, 2_000_000 + i, 2_000_000 + i}));
        }
        // the ring kept the latest SIGHTS: the oldest kept holds 5, still within FRESH_MICROS of the admission
        assertThat(positions
                        .admitted(COUPON, SHARDS, 0, 1, 1_990_000, -1)
                        .block()
                        .ahead())
                .isEqualTo(1 + 5 + 5);
        assertThat(calls).hasValue(0);
        // too far before every sight: read exactly
        positions
                .admitted(COUPON, SHARDS, 0, 1, 2_000_000 - ShardPositions.FRESH_MICROS - 10, -1)
                .block();
        assertThat(calls).hasValue(SHARDS);
    }

    @Test
    void shouldCountTheMembersDoneOnEachShardAsLastSeenTheHomeShardsAtTheAdmission() {
        ShardOrder.Batch tick = new ShardOrder.Batch(
                List.of(),
                0,
                0,
                0,
                0,
                30,
                0,
                0,
                new long[] {100, 100, 100},
                new long[] {1_000_000, 1_000_000, 1_000_000},
                0,
                0,
                new long[SHARDS],
                new long[] {10, 10, 10});
        positions.saw(COUPON, tick);
        assertThat(positions.done(COUPON)).isEqualTo(30);
        // a worker's batch landed since the tick: the admission on shard 1 reads 30 done there
        assertThat(positions.admitted(COUPON, SHARDS, 1, 100, 1_050_000, 30).block())
                .isEqualTo(new ShardPositions.Place(300, 10 + 30 + 10));
        // the next, on shard 2, reads 25 there; shard 1's stays as the admission before saw it
        assertThat(positions
                        .admitted(COUPON, SHARDS, 2, 100, 1_060_000, 25)
                        .block()
                        .done())
                .isEqualTo(10 + 30 + 25);
        // a reply that came late (an older time) does not take a shard's count back
        assertThat(positions
                        .admitted(COUPON, SHARDS, 1, 99, 1_040_000, 20)
                        .block()
                        .done())
                .isEqualTo(10 + 30 + 25);
        assertThat(calls).hasValue(0);
    }

    @Test
    void shouldReadExactlyBetweenTwoSightsFarApart() {
        positions.saw(COUPON, tick(0, new long[] {10, 10, 10}, new long[] {1_000_000, 1_000_000, 1_000_000}));
        positions.saw(COUPON, tick(0, new long[] {90, 90, 90}, new long[] {2_000_000, 2_000_000, 2_000_000}));
        // half a second from either sight: the drain stalled, or the shards were quiet; no count to take between them
        positions.admitted(COUPON, SHARDS, 0, 50, 1_500_000, -1).block();
        assertThat(calls).hasValue(SHARDS);
    }
}
