package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;

/** The mirror of MySQL in Redis: versioned, so an older snapshot never undoes a newer change; never for a retired event. */
@ApiTest
class CouponMirrorTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    CouponMirror mirror;

    @Autowired
    CouponRepository coupons;

    private void close(long id) {
        client().post()
                .uri("/admin/v1/coupons/{id}/close", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk();
    }

    @Test
    void shouldKeepAnOperatorsCloseWhenASnapshotReadBeforeItIsMirroredAfterIt() {
        long id = createCoupon(10, 100);
        Coupon readBeforeTheClose = coupons.findById(id).orElseThrow();
        close(id);

        mirror.mirror(readBeforeTheClose).block(Duration.ofSeconds(5));

        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "closed")).isEqualTo("1");
        requestCoupon(id, "after-stale-mirror")
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("NOT_OPEN");
    }

    @Test
    void shouldApplyANewerSnapshotWhenItIsMirrored() {
        long id = createCoupon(10, 100);
        coupons.updateRate(id, 250);

        mirror.mirror(coupons.findById(id).orElseThrow()).block(Duration.ofSeconds(5));

        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "rate")).isEqualTo("250");
    }

    /**
     * After a Redis loss the sequence restarts at the stock floor; the count of members with an outcome must restart at
     * what MySQL decided, or every new member's position would count the members already served.
     */
    @Test
    void shouldCountFromWhatMySqlDecidedWhenRestoredSoPositionsAreNotInflated() {
        long id = createCoupon(100, 10);
        for (int seq = 1; seq <= 42; seq++) {
            String table = seq <= 40
                    ? "coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                            + " VALUES (?, ?, ?, NOW(3), NOW(3))"
                    : "coupon_issue_failure (coupon_id, member_id, request_seq, reason, failed_at)"
                            + " VALUES (?, ?, ?, 'SOLD_OUT', NOW(3))";
            jdbc.sql("INSERT INTO " + table).params(id, "decided-" + seq, seq).update();
        }
        jdbc.sql("UPDATE coupon SET published_count = 50, issued_count = 40, failed_count = 2 WHERE id = ?")
                .param(id)
                .update();
        redis.delete(CouponKeys.state(id));

        requestCoupon(id, "after-the-loss")
                .expectStatus()
                .isAccepted()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(9); // 8 published before the loss still undecided, then this member
        assertThat(redis.opsForValue().get(CouponKeys.done(id))).isEqualTo("42");
    }

    @Test
    void shouldWriteNothingWhenTheEventWasJustRetired() {
        long id = createCoupon(10, 100);
        Coupon readBeforeRetirement = coupons.findById(id).orElseThrow();
        redis.delete(CouponKeys.state(id));
        redis.opsForValue().set(CouponKeys.retired(id), "1", Duration.ofMinutes(1));

        mirror.mirror(readBeforeRetirement).block(Duration.ofSeconds(5));

        assertThat(redis.hasKey(CouponKeys.meta(id))).isFalse();
        assertThat(redis.hasKey(CouponKeys.queue(id))).isFalse();
    }
}
