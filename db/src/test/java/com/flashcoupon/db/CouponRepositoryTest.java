package com.flashcoupon.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The schema and the guarded counters against the real MySQL-compatible server. */
class CouponRepositoryTest {

    private static TestDatabase database;
    private static JdbcClient jdbc;
    private static CouponRepository coupons;

    @BeforeAll
    static void migrate() {
        database = TestDatabase.create();
        jdbc = JdbcClient.create(database.migratedDataSource());
        coupons = new CouponRepository(jdbc);
    }

    @AfterAll
    static void drop() {
        database.close();
    }

    /** Whole seconds (see below), taken from the clock: no test here depends on the day it runs. */
    private static Instant tomorrow() {
        return Instant.now().plus(1, ChronoUnit.DAYS).truncatedTo(ChronoUnit.SECONDS);
    }

    private static long newCoupon(int quantity) {
        Instant open = tomorrow();
        return coupons.insert(new NewCoupon("Black Friday", quantity, open, null, 500, 30));
    }

    @Nested
    class Create {

        // Whole seconds: MariaDB announces itself as 5.5.5-10.x, and mysql-connector-j then drops fractional
        // seconds of bound timestamps. The api normalises coupon windows to whole seconds for that reason.
        @Test
        void shouldKeepInstantsExactWhenRoundTripped() {
            Instant open = tomorrow();
            Instant close = open.plus(2, ChronoUnit.HOURS);
            long id = coupons.insert(new NewCoupon("Window", 10, open, close, 7, 3));

            Coupon coupon = coupons.findById(id).orElseThrow();

            assertThat(coupon.openAt()).isEqualTo(open);
            assertThat(coupon.closeAt()).isEqualTo(close);
            assertThat(coupon.issueRatePerSecond()).isEqualTo(7);
            assertThat(coupon.closedByOperator()).isFalse();
            assertThat(coupon.issuedCount()).isZero();
            assertThat(coupon.stockShards()).as("one stock shard unless told").isEqualTo(1);
        }

        @Test
        void shouldKeepTheStockShardsAndChangeThemOnlyBeforeTheEventOpens() {
            Instant open = tomorrow();
            long id = coupons.insert(new NewCoupon("Sharded", 10, open, null, 7, 3, Coupon.Queueing.FIFO, 0, null, 6));
            assertThat(coupons.findById(id).orElseThrow().stockShards()).isEqualTo(6);

            long version = coupons.findById(id).orElseThrow().version();
            assertThat(coupons.updateStockShards(id, 2)).isTrue();
            assertThat(coupons.findById(id).orElseThrow().stockShards()).isEqualTo(2);
            assertThat(coupons.findById(id).orElseThrow().version()).isGreaterThan(version);

            long opened = coupons.insert(new NewCoupon(
                    "Open", 10, Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS), null, 7, 3));
            assertThat(coupons.updateStockShards(opened, 2))
                    .as("opened by the database's clock")
                    .isFalse();
            assertThat(coupons.findById(opened).orElseThrow().stockShards()).isEqualTo(1);
        }
    }

    @Nested
    class Lifecycle {

        private final Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);

        @Test
        void shouldRetireOnceWhenTwoInstancesRace() {
            long id = newCoupon(5);
            long version = coupons.findById(id).orElseThrow().version();
            coupons.markSettled(id, version, now);

            assertThat(coupons.markRetired(id, version, now, 5, 12)).isTrue();
            assertThat(coupons.markRetired(id, version, now, 5, 12)).isFalse();

            Coupon retired = coupons.findById(id).orElseThrow();
            assertThat(retired.retiredAt()).isEqualTo(now);
            assertThat(retired.admittedCount()).isEqualTo(5);
            assertThat(retired.rejectedSoldOutCount()).isEqualTo(12);
            assertThat(coupons.findWithRedisState(1_000)).contains(id);
            coupons.markKeysRemoved(id, now);
            assertThat(coupons.findWithRedisState(1_000)).doesNotContain(id);
        }

        @Test
        void shouldChangeNothingOfARetiredEvent() {
            long id = newCoupon(5);
            long version = coupons.findById(id).orElseThrow().version();
            coupons.markSettled(id, version, now);
            coupons.markRetired(id, version, now, 5, 0);

            assertThat(coupons.updateRate(id, 9)).isFalse();
            assertThat(coupons.updateCloseAt(id, now.plusSeconds(60))).isFalse();
            assertThat(coupons.close(id, now)).isFalse();
            Coupon retired = coupons.findById(id).orElseThrow();
            assertThat(retired.issueRatePerSecond()).isEqualTo(500);
            assertThat(retired.closeAt()).isNull();
            assertThat(retired.settledAt()).isEqualTo(now);
        }

        @Test
        void shouldNotSettleWhenTheSettingsChangedSinceTheyWereRead() {
            long id = newCoupon(5);
            long version = coupons.findById(id).orElseThrow().version();
            coupons.updateCloseAt(id, now.plusSeconds(3_600));

            assertThat(coupons.markSettled(id, version, now)).isFalse();
            assertThat(coupons.findById(id).orElseThrow().settledAt()).isNull();
        }

        @Test
        void shouldNotRetireWhenTheSettingsChangedSinceTheyWereRead() {
            long id = newCoupon(5);
            long version = coupons.findById(id).orElseThrow().version();
            coupons.markSettled(id, version, now);
            coupons.updateRate(id, 9);

            assertThat(coupons.markRetired(id, version, now, 5, 0)).isFalse();
            assertThat(coupons.findById(id).orElseThrow().retiredAt()).isNull();
        }

        @Test
        void shouldUnsettleWhenTheWindowIsMoved() {
            long id = newCoupon(5);
            coupons.markSettled(id, coupons.findById(id).orElseThrow().version(), now);

            coupons.updateCloseAt(id, now.plusSeconds(3_600));

            Coupon moved = coupons.findById(id).orElseThrow();
            assertThat(moved.settledAt()).isNull();
            assertThat(coupons.markRetired(id, moved.version(), now, 5, 0)).isFalse();
        }

        @Test
        void shouldRaiseTheVersionWhenAnOperatorChangesTheEvent() {
            long id = newCoupon(5);
            long created = coupons.findById(id).orElseThrow().version();

            coupons.updateRate(id, 9);
            coupons.close(id, now);

            assertThat(coupons.findById(id).orElseThrow().version()).isEqualTo(created + 2);
        }
    }

    @Nested
    class StockGuard {

        @Test
        void shouldRefuseIncrementWhenItWouldPassTheQuantity() {
            long id = newCoupon(10);

            assertThat(coupons.addIssued(id, 7)).isTrue();
            assertThat(coupons.addIssued(id, 4)).isFalse();
            assertThat(coupons.addIssued(id, 3)).isTrue();
            assertThat(coupons.addIssued(id, 1)).isFalse();

            assertThat(coupons.findById(id).orElseThrow().issuedCount()).isEqualTo(10);
        }

        @Test
        void shouldRejectSecondWalletWhenMemberAlreadyHasOne() {
            long id = newCoupon(10);
            String insert = "INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                    + " VALUES (?, 'm-1', 1, NOW(3), NOW(3))";
            jdbc.sql(insert).param(id).update();

            assertThatThrownBy(() -> jdbc.sql(insert).param(id).update()).hasMessageContaining("Duplicate");
            assertThat(jdbc.sql("INSERT IGNORE" + insert.substring("INSERT".length()))
                            .param(id)
                            .update())
                    .isZero();
        }
    }

    @Nested
    class Close {

        @Test
        void shouldSetCloseAtToNowWhenWindowWasOpenEnded() {
            long id = newCoupon(10);
            Instant now = tomorrow().plus(1, ChronoUnit.HOURS);

            coupons.close(id, now);

            Coupon coupon = coupons.findById(id).orElseThrow();
            assertThat(coupon.closedByOperator()).isTrue();
            assertThat(coupon.closeAt()).isEqualTo(now);
        }

        @Test
        void shouldNeverLowerPublishedHighWaterWhenBatchesLandOutOfOrder() {
            long id = newCoupon(10);

            coupons.recordPublished(id, 6, 9);
            coupons.recordPublished(id, 4, 7);

            assertThat(coupons.findById(id).orElseThrow().publishedCount()).isEqualTo(6);
            assertThat(coupons.findById(id).orElseThrow().admittedSeenCount()).isEqualTo(9);
        }

        @Test
        void shouldCountTheAdmissionsNeverPublishedOnceWhenARestoreRunsTwice() {
            long id = newCoupon(10);
            coupons.recordPublished(id, 4, 9);

            long first = coupons.countUnknownAtRestore(id);
            long again = coupons.countUnknownAtRestore(id);

            assertThat(first).isEqualTo(5);
            assertThat(again).isZero();
            Coupon coupon = coupons.findById(id).orElseThrow();
            assertThat(coupon.unknownCount()).isEqualTo(5);
            assertThat(coupon.admittedSeenCount())
                    .as("seen comes down to what was published")
                    .isEqualTo(4);
        }
    }
}
