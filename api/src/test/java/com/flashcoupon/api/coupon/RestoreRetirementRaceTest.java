package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * F9: a restore that read the coupon's row just before the event retired (another instance's retirer ran
 * {@code markRetired} and retire.lua between this instance's read and its lock) once wrote the members' queue and
 * result keys of a retired event, which no pass ever removes, and changed the retired row's figures. It writes nothing.
 */
@ApiTest
class RestoreRetirementRaceTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    private MemberRestore members;

    @Test
    void shouldWriteNothingOfAnEventRetiredWhileItsRestoreBegan() {
        long id = createCoupon(10, 100);
        // what MySQL knows of the event, then its retirement: the row retired, the mark in Redis, its keys gone
        jdbc.sql("INSERT INTO coupon_issue_failure (coupon_id, member_id, request_seq, reason, failed_at)"
                        + " VALUES (?, 'f9-member', 1, 'SOLD_OUT', NOW(3))")
                .param(id)
                .update();
        jdbc.sql("UPDATE coupon SET admitted_seen_count = 5, retired_at = NOW(3), keys_removed_at = NOW(3)"
                        + " WHERE id = ?")
                .param(id)
                .update();
        redis.opsForValue().set(CouponKeys.retired(id), "1", Duration.ofMinutes(5));
        String token = members.lock(id).block(Duration.ofSeconds(10));
        assertThat(token).as("the restore's lock").isNotNull();

        try {
            assertThatThrownBy(() -> members.restore(id, token).block(Duration.ofSeconds(30)))
                    .isInstanceOf(MemberRestore.LockLost.class);

            assertThat(redis.hasKey(CouponKeys.queue(id)))
                    .as("queue of the retired event")
                    .isFalse();
            assertThat(redis.hasKey(CouponKeys.result(id)))
                    .as("results of the retired event")
                    .isFalse();
            assertThat(jdbc.sql("SELECT unknown_count FROM coupon WHERE id = ?")
                            .param(id)
                            .query(Long.class)
                            .single())
                    .as("the retired row's unknown count")
                    .isZero();
        } finally {
            redis.delete(CouponKeys.restoring(id));
        }
    }
}
