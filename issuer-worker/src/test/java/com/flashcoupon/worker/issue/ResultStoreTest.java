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
        store = new ResultStore(redis);
    }

    @AfterAll
    static void disconnect() {
        connections.destroy();
    }

    private static String done(long couponId) {
        return redis.opsForValue().get(CouponKeys.done(couponId));
    }

    @Nested
    class RecordResults {

        @Test
        void shouldWriteEachStatusAndCountItWhenMembersAreNew() {
            long added = store.record(
                    101, List.of(Decision.issued("m-1", 7, 1L), Decision.failed("m-2", FailureReason.SOLD_OUT, 2L)));

            assertThat(added).isEqualTo(2);
            assertThat(redis.opsForHash().entries(CouponKeys.result(101)))
                    .containsEntry("m-1", "I:7")
                    .containsEntry("m-2", "F:SOLD_OUT")
                    .hasSize(2);
            assertThat(done(101)).isEqualTo("2");
        }

        @Test
        void shouldCountEachMemberOnceWhenTheSameResultsAreRecordedAgain() {
            var decisions = List.of(Decision.issued("m-1", 7, 1L), Decision.issued("m-2", 8, 1L));
            store.record(102, decisions);

            long added = store.record(102, decisions);

            assertThat(added).isZero();
            assertThat(done(102)).isEqualTo("2");
        }

        @Test
        void shouldWriteNothingWhenTheEventWasRetired() {
            redis.opsForValue().set(CouponKeys.retired(104), "1");

            long added = store.record(104, List.of(Decision.issued("m-1", 7, 1L)));

            assertThat(added).isZero();
            assertThat(redis.hasKey(CouponKeys.result(104))).isFalse();
            assertThat(redis.hasKey(CouponKeys.done(104))).isFalse();
        }

        @Test
        void shouldKeepTheFirstStatusWhenAMemberIsRecordedWithAnother() {
            store.record(103, List.of(Decision.issued("m-1", 7, 1L)));

            long added = store.record(
                    103,
                    List.of(Decision.failed("m-1", FailureReason.UNPROCESSABLE, 2L), Decision.issued("m-2", 9, 2L)));

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
}
