package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.worker.support.TestRedis;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/** scripts/record_results.lua against the real Redis (database 9). */
class ResultStoreTest {

    private static LettuceConnectionFactory connections;
    private static StringRedisTemplate redis;
    private static ResultStore store;

    @BeforeAll
    static void connect() {
        TestRedis.flush();
        connections = new LettuceConnectionFactory(LettuceConnectionFactory.createRedisConfiguration(TestRedis.url()));
        connections.afterPropertiesSet();
        connections.start();
        redis = new StringRedisTemplate(connections);
        // events from 900 up have their stock in six shards, the others in one
        store = new ResultStore(redis, id -> id >= 900 ? SHARDS : 1);
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    private static final int SHARDS = 6;

    private static String done(long couponId) {
        return redis.opsForValue().get(CouponKeys.done(couponId));
    }

    @Nested
    class RecordResults {

        @Test
        void shouldWriteEachStatusAndCountItWhenMembersAreNew() {
            long added = store.record(
                    101,
                    List.of(Decision.issued("m-1", 7, 1L, 7), Decision.failed("m-2", FailureReason.SOLD_OUT, 2L, 5)));

            assertThat(added).isEqualTo(2);
            assertThat(redis.opsForHash().entries(CouponKeys.result(101)))
                    .containsEntry("m-1", "I:7")
                    .containsEntry("m-2", "F:SOLD_OUT")
                    .hasSize(2);
            assertThat(done(101)).isEqualTo("2");
        }

        @Test
        void shouldCountEachMemberOnceWhenTheSameResultsAreRecordedAgain() {
            var decisions = List.of(Decision.issued("m-1", 7, 1L, 7), Decision.issued("m-2", 8, 1L, 8));
            store.record(102, decisions);

            long added = store.record(102, decisions);

            assertThat(added).isZero();
            assertThat(done(102)).isEqualTo("2");
        }

        /**
         * The write time the drainer cuts the rate on (a bound of 250 ms as shipped): a fresh worker's first
         * transaction took 396 ms and, standing alone for the database, cut a new event to half its rate.
         */
        @Test
        void shouldSmoothTheWriteTimeFromZeroSoThatOneSlowTransactionIsNotASlowDatabase() {
            long coupon = 105;
            redis.opsForHash().put(CouponKeys.meta(coupon), "total", "10"); // written only for a coupon in Redis
            List<Integer> smoothed = new java.util.ArrayList<>();
            for (int write = 0; write < 3; write++) {
                store.record(coupon, List.of(Decision.issued("m-" + write, 7, 1L, 7)), 400_000_000);
                smoothed.add(Integer.parseInt((String) redis.opsForHash().get(CouponKeys.stats(coupon), "writeMs")));
            }
            // 0.4 × 400, then 0.6 × 160 + 0.4 × 400, then 0.6 × 256 + 0.4 × 400
            assertThat(smoothed).containsExactly(160, 256, 314);
            store.record(coupon, List.of(Decision.issued("m-fast", 7, 1L, 7)), 10_000_000);
            assertThat(redis.opsForHash().get(CouponKeys.stats(coupon), "writeMs"))
                    .isEqualTo("192");
        }

        @Test
        void shouldWriteNothingWhenTheEventWasRetired() {
            redis.opsForValue().set(CouponKeys.retired(104), "1");

            long added = store.record(104, List.of(Decision.issued("m-1", 7, 1L, 7)));

            assertThat(added).isZero();
            assertThat(redis.hasKey(CouponKeys.result(104))).isFalse();
            assertThat(redis.hasKey(CouponKeys.done(104))).isFalse();
        }

        @Test
        void shouldKeepTheFirstStatusWhenAMemberIsRecordedWithAnother() {
            store.record(103, List.of(Decision.issued("m-1", 7, 1L, 7)));

            long added = store.record(
                    103,
                    List.of(
                            Decision.failed("m-1", FailureReason.UNPROCESSABLE, 2L, 5),
                            Decision.issued("m-2", 9, 2L, 9)));

            assertThat(added).isEqualTo(1);
            assertThat(redis.opsForHash().get(CouponKeys.result(103), "m-1")).isEqualTo("I:7");
            assertThat(done(103)).isEqualTo("2");
        }

        @Test
        void shouldWriteNothingWhenThereAreNoDecisions() {
            assertThat(store.record(104, List.of())).isZero();
            assertThat(done(104)).isNull();
        }
    }

    /**
     * A Redis restored from MySQL no longer queues the members that were published but not yet decided when it lost
     * its data (they were in Kafka). Their result puts them back: below the cursor (already published, so never
     * published again) and out of the stock floor {@code base} (counted once, now in the queue).
     */
    @Nested
    class AfterARestore {

        /** The coupon as mirror.lua restores it: 10 admissions published before the loss, none decided, then two new. */
        private void restored(long couponId) {
            redis.opsForHash().putAll(CouponKeys.meta(couponId), java.util.Map.of("total", "100", "base", "10"));
            redis.opsForValue().set(CouponKeys.seq(couponId), "12");
            redis.opsForValue().set(CouponKeys.cursor(couponId), "0");
            redis.opsForZSet().add(CouponKeys.queue(couponId), "new-1", 11);
            redis.opsForZSet().add(CouponKeys.queue(couponId), "new-2", 12);
        }

        private long base(long couponId) {
            return Long.parseLong((String) redis.opsForHash().get(CouponKeys.meta(couponId), "base"));
        }

        private long cursor(long couponId) {
            return Long.parseLong(redis.opsForValue().get(CouponKeys.cursor(couponId)));
        }

        @Test
        void shouldQueueAMemberPublishedBeforeTheLossBelowTheCursorAndOutOfTheFloor() {
            restored(201);

            store.record(
                    201,
                    List.of(
                            Decision.issued("old-4", 70, 1L, 4),
                            Decision.failed("old-7", FailureReason.SOLD_OUT, 1L, 7)));

            assertThat(redis.opsForZSet().score(CouponKeys.queue(201), "old-4")).isEqualTo(4.0);
            assertThat(redis.opsForZSet().score(CouponKeys.queue(201), "old-7")).isEqualTo(7.0);
            assertThat(cursor(201)).as("both were published before the loss").isEqualTo(2);
            assertThat(base(201)).isEqualTo(8);
            assertThat(redis.opsForZSet().zCard(CouponKeys.queue(201)) + base(201))
                    .as("admissions counted once: the stock cap is unchanged")
                    .isEqualTo(12);
            assertThat(redis.opsForZSet().range(CouponKeys.queue(201), cursor(201), -1))
                    .as("what is left to publish")
                    .containsExactly("new-1", "new-2");
        }

        @Test
        void shouldChangeNoCountWhenTheMemberIsQueuedAlready() {
            restored(202);

            store.record(202, List.of(Decision.issued("new-1", 71, 1L, 11)));

            assertThat(cursor(202)).isZero();
            assertThat(base(202)).isEqualTo(10);
            assertThat(redis.opsForHash().get(CouponKeys.result(202), "new-1")).isEqualTo("I:71");
        }

        /**
         * Published before the loss (counted in base), asked again after the restore before being decided: admitted a
         * second time with a new sequence. Its first result leaves base, so the event counts it once and can settle;
         * a replayed result changes nothing more.
         */
        @Test
        void shouldCountAMemberAdmittedAgainAfterTheRestoreOnceWhenTheirResultComes() {
            restored(205);

            store.record(205, List.of(Decision.issued("new-1", 74, 1L, 5)));
            store.record(205, List.of(Decision.issued("new-1", 74, 1L, 5)));

            assertThat(base(205)).isEqualTo(9);
            assertThat(cursor(205)).isZero();
            assertThat(redis.opsForZSet().score(CouponKeys.queue(205), "new-1")).isEqualTo(11.0);
        }

        @Test
        void shouldQueueOnlyWhileTheRestoreHasNotWrittenTheMetaYet() {
            store.record(203, List.of(Decision.issued("old-3", 72, 1L, 3)));

            assertThat(redis.opsForZSet().score(CouponKeys.queue(203), "old-3")).isEqualTo(3.0);
            assertThat(redis.hasKey(CouponKeys.meta(203))).isFalse();
            assertThat(redis.hasKey(CouponKeys.cursor(203))).isFalse();
        }

        @Test
        void shouldLeaveTheQueueAloneWhenTheSequenceWouldLandAboveTheCursor() {
            restored(204);

            store.record(204, List.of(Decision.issued("late", 73, 1L, 13)));

            assertThat(redis.opsForZSet().score(CouponKeys.queue(204), "late")).isNull();
            assertThat(cursor(204)).isZero();
            assertThat(base(204)).isEqualTo(10);
            assertThat(redis.opsForHash().get(CouponKeys.result(204), "late")).isEqualTo("I:73");
        }
    }

    @Nested
    class Sharded {

        @Test
        void shouldWriteEachResultOnTheMembersHomeShardOnceAndTheWriteTimeOnShardZero() {
            long coupon = 901;
            List<Decision> decisions = java.util.stream.IntStream.range(0, 60)
                    .mapToObj(i -> Decision.issued("m-" + i, 1000 + i, (long) i + 1, 7))
                    .toList();
            // the first six on each home shard, written as the pipeline writes them: with a stock hash per shard
            for (int shard = 0; shard < SHARDS; shard++) {
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(tag(coupon, shard)), "share", "10");
            }
            assertThat(store.record(coupon, decisions, 12_000_000)).isEqualTo(60);
            assertThat(store.record(coupon, decisions, 12_000_000)).isZero();

            long sum = 0;
            for (int shard = 0; shard < SHARDS; shard++) {
                String tag = tag(coupon, shard);
                var results =
                        redis.<String, String>opsForHash().entries(com.flashcoupon.contract.StockShards.result(tag));
                int home = shard;
                assertThat(results.keySet())
                        .allSatisfy(member -> assertThat(com.flashcoupon.contract.StockShards.home(member, SHARDS))
                                .isEqualTo(home));
                assertThat(redis.opsForValue().get(com.flashcoupon.contract.StockShards.done(tag)))
                        .isEqualTo(results.isEmpty() ? null : Integer.toString(results.size()));
                sum += results.size();
            }
            assertThat(sum).isEqualTo(60);
            // smoothed from 0: 0.4 × 12 = 5 after the first write, 0.6 × 5 + 0.4 × 12 = 8 after the second (a first
            // transaction alone never stands for the database)
            assertThat(redis.opsForHash().get(CouponKeys.stats(coupon), "writeMs"))
                    .isEqualTo("8");
        }

        @Test
        void shouldWriteNothingOnAShardMarkedRetired() {
            long coupon = 902;
            String member = "m-retired";
            String tag = tag(coupon, com.flashcoupon.contract.StockShards.home(member, SHARDS));
            redis.opsForValue().set(com.flashcoupon.contract.StockShards.retired(tag), "1");
            assertThat(store.record(coupon, List.of(Decision.issued(member, 5, 1L, 7))))
                    .isZero();
            assertThat(redis.hasKey(com.flashcoupon.contract.StockShards.result(tag)))
                    .isFalse();
        }

        /**
         * After Redis lost the event: a member published before the loss and decided after it goes back into their
         * home shard's queue, below the cursor (which moves past them), and the place the restore's deal left out
         * comes back to that shard's cap, counted as back (the meta's base less every shard's back is what stays
         * known only as a count), in the same step; a member already queued changes nothing.
         */
        @Test
        void shouldPutAMemberDecidedAfterALossBackOnTheirHomeShardAndItsPlaceBackInTheCap() {
            long coupon = 903;
            String member = "m-in-flight";
            String queuedMember = "m-queued";
            String tag = tag(coupon, com.flashcoupon.contract.StockShards.home(member, SHARDS));
            String queuedTag = tag(coupon, com.flashcoupon.contract.StockShards.home(queuedMember, SHARDS));
            // as the restore's deal left it: members back (sequence 2), a new admission (13) above the cursor
            for (int shard = 0; shard < SHARDS; shard++) {
                String each = tag(coupon, shard);
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(each), "share", "5");
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(each), "moved", "0");
            }
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(tag), "m-back", 2);
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(tag), "m-new", 13);
            redis.opsForValue().set(com.flashcoupon.contract.StockShards.cursor(tag), "1");
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(queuedTag), queuedMember, 14);
            redis.opsForHash().put(CouponKeys.meta(coupon), "base", "3");

            assertThat(store.record(
                            coupon,
                            List.of(Decision.issued(member, 5, 7L, 7), Decision.issued(queuedMember, 6, 20L, 7))))
                    .isEqualTo(2);

            assertThat(redis.opsForZSet().rank(com.flashcoupon.contract.StockShards.queue(tag), member))
                    .isEqualTo(1);
            assertThat(redis.opsForValue().get(com.flashcoupon.contract.StockShards.cursor(tag)))
                    .isEqualTo("2");
            assertThat(redis.opsForZSet().score(com.flashcoupon.contract.StockShards.times(tag), member))
                    .isEqualTo(0.0);
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "moved"))
                    .isEqualTo("1");
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "back"))
                    .isEqualTo("1");
            assertThat(redis.opsForHash().get(CouponKeys.meta(coupon), "base")).isEqualTo("3");
            assertThat(redis.opsForZSet().score(com.flashcoupon.contract.StockShards.queue(queuedTag), queuedMember))
                    .isEqualTo(14.0);
            if (!queuedTag.equals(tag)) {
                assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(queuedTag), "moved"))
                        .isEqualTo("0");
            }

            // recorded again (a replay): nothing more
            store.record(coupon, List.of(Decision.issued(member, 5, 7L, 7)));
            assertThat(redis.opsForValue().get(com.flashcoupon.contract.StockShards.cursor(tag)))
                    .isEqualTo("2");
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "back"))
                    .isEqualTo("1");
        }

        /**
         * After a restore, a member whose request was published before the loss asked again before it was decided, and
         * holds a second place (a time above 0, above the cursor): when the first request's result comes, the shard's
         * cap takes one place back and counts it as 'again', once, so the event counts the member once and the stock
         * is not stranded. A request published after the restore (a sequence above 'restored') changes nothing.
         */
        @Test
        void shouldGiveBackThePlaceOfAMemberWhoAskedAgainAfterARestoreBeforeTheirFirstRequestWasDecided() {
            long coupon = 904;
            String member = "m-asked-again";
            String later = "m-after-the-restore";
            String tag = tag(coupon, com.flashcoupon.contract.StockShards.home(member, SHARDS));
            String laterTag = tag(coupon, com.flashcoupon.contract.StockShards.home(later, SHARDS));
            for (int shard = 0; shard < SHARDS; shard++) {
                String each = tag(coupon, shard);
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(each), "share", "5");
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(each), "moved", "0");
                // restored when MySQL knew 10 publications
                redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(each), "restored", "10");
            }
            // both admitted since the restore (shard sequences 11 and 12, real times), neither published yet
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(tag), member, 11);
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.times(tag), member, 1_700_000_000_000_000.0);
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(laterTag), later, 12);
            redis.opsForZSet()
                    .add(com.flashcoupon.contract.StockShards.times(laterTag), later, 1_700_000_000_000_001.0);

            // the member's request of before the loss (sequence 7), and a request published since (sequence 12)
            assertThat(store.record(
                            coupon, List.of(Decision.issued(member, 5, 100L, 7), Decision.issued(later, 6, 100L, 12))))
                    .isEqualTo(2);
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "moved"))
                    .isEqualTo("1");
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "again"))
                    .isEqualTo("1");
            assertThat(redis.opsForZSet().score(com.flashcoupon.contract.StockShards.queue(tag), member))
                    .as("the second place stays: it is published, and a no-op in MySQL")
                    .isEqualTo(11.0);
            if (!laterTag.equals(tag)) {
                assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(laterTag), "moved"))
                        .isEqualTo("0");
            }

            // a member the restore put back (time 0), and one on a shard not restored: no place given back
            String putBack = "m-put-back";
            String putBackTag = tag(coupon, com.flashcoupon.contract.StockShards.home(putBack, SHARDS));
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(putBackTag), putBack, 3);
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.times(putBackTag), putBack, 0);
            long movedBefore = Long.parseLong(
                    (String) redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(putBackTag), "moved"));
            store.record(coupon, List.of(Decision.issued(putBack, 8, 100L, 3)));
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(putBackTag), "moved"))
                    .isEqualTo(Long.toString(movedBefore));
            long other = 905;
            String notRestored = "m-not-restored";
            String notRestoredTag = tag(other, com.flashcoupon.contract.StockShards.home(notRestored, SHARDS));
            redis.opsForHash().put(com.flashcoupon.contract.StockShards.stock(notRestoredTag), "share", "5");
            redis.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(notRestoredTag), notRestored, 11);
            redis.opsForZSet()
                    .add(
                            com.flashcoupon.contract.StockShards.times(notRestoredTag),
                            notRestored,
                            1_700_000_000_000_000.0);
            store.record(other, List.of(Decision.issued(notRestored, 9, 100L, 7)));
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(notRestoredTag), "again"))
                    .isNull();

            // replayed, and the second request decided: nothing more
            store.record(coupon, List.of(Decision.issued(member, 5, 100L, 7), Decision.issued(member, 5, 200L, 14)));
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "again"))
                    .isEqualTo("1");
            assertThat(redis.opsForHash().get(com.flashcoupon.contract.StockShards.stock(tag), "moved"))
                    .isEqualTo("1");
        }

        private static String tag(long coupon, int shard) {
            return com.flashcoupon.contract.StockShards.tag(coupon, SHARDS, shard);
        }
    }
}
