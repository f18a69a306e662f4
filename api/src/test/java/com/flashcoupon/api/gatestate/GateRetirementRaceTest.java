package com.flashcoupon.api.gatestate;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;

/**
 * The gate's keys and a retirement that races a restore (F9's interleaving, for the gate): a restore that read the
 * event's row before it retired goes on to bring the gate into Redis after retire.lua removed every key. It must write
 * none: the list, its version, the gate's counts would stay in Redis for ever, with no pass left to remove them.
 */
@ApiTest
class GateRetirementRaceTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    private GateMirror gates;

    /** A listed event (its list in Redis), with refusals counted and saved, then retired by retire.lua's step. */
    private long retiredInRedis() {
        long id = createCoupon(listedEventInAnHour());
        client().put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue("m-1\nm-2\n")
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(redis.hasKey(CouponKeys.eligible(id))).isTrue();
        jdbc.sql("UPDATE coupon_gate SET refused_list = 4 WHERE coupon_id = ?")
                .param(id)
                .update();
        // retire.lua: the mark, then every state key removed
        redis.opsForValue().set(CouponKeys.retired(id), "1", Duration.ofMinutes(5));
        redis.delete(CouponKeys.state(id));
        return id;
    }

    /** Every key of the event's slot left in Redis but the retirement's mark. */
    private java.util.Set<String> keysLeft(long id) {
        var keys = new java.util.TreeSet<>(
                redis.keys(CouponKeys.tag(id).replace("{", "\\{").replace("}", "\\}") + "*"));
        keys.remove(CouponKeys.retired(id));
        return keys;
    }

    @Test
    void shouldBringNothingBackForAnEventThatRetiredDuringTheLoad() {
        long id = retiredInRedis(); // the row still reads live: the restore read it before the retirement

        gates.prepare(id, 1, GateMirror.OPERATOR_WAIT).block(Duration.ofSeconds(30));

        assertThat(keysLeft(id)).isEmpty();
    }

    @Test
    void shouldBringNothingBackForAnEventRetiredInMySql() {
        long id = retiredInRedis();
        jdbc.sql("UPDATE coupon SET retired_at = NOW(3), settled_at = NOW(3), keys_removed_at = NOW(3) WHERE id = ?")
                .param(id)
                .update();
        redis.delete(CouponKeys.retired(id)); // even once the mark expired

        gates.prepare(id, 1, GateMirror.OPERATOR_WAIT).block(Duration.ofSeconds(30));

        assertThat(keysLeft(id)).isEmpty();
    }
}
