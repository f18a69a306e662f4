package com.flashcoupon.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.redis.RedisReplies;
import com.flashcoupon.api.support.TestEnvironment;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * {@code scripts/limits.lua} through {@code ratelimit.lua} on the real Redis: bursts, refusals that charge nothing,
 * scopes, limits turned off, refunds. The keys are a coupon's, in one slot, as the api's scripts use them.
 */
class RateLimitScriptTest {

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();

    private String member;
    private String address;

    @BeforeEach
    void freshKeys() {
        long unique = System.nanoTime();
        member = "{cpn:" + unique + "}:rl:m:script-test";
        address = "{cpn:" + unique + "}:rl:a:script-test";
    }

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SCRIPT = RedisScript.of(RateLimits.SCRIPT.text(), List.class);

    private RateLimits.Verdict ask(int memberPerSecond, int addressPerSecond) {
        List<?> reply = REDIS.execute(
                SCRIPT,
                List.of(member, address),
                "charge",
                Integer.toString(memberPerSecond),
                Long.toString(RateLimits.burst(memberPerSecond)),
                Integer.toString(addressPerSecond),
                Long.toString(RateLimits.burst(addressPerSecond)));
        long scope = RedisReplies.number(reply, 0);
        return scope == 0
                ? RateLimits.Verdict.ALLOWED
                : new RateLimits.Verdict(
                        scope == 1 ? "member" : "address", Math.max(1, (RedisReplies.number(reply, 1) + 999) / 1000));
    }

    @Test
    void shouldGiveBackOneChargeOnRefund() {
        for (int i = 0; i < 2; i++) {
            assertThat(ask(1, 0).allowed()).isTrue();
        }
        assertThat(ask(1, 0).allowed()).isFalse();

        REDIS.execute(SCRIPT, List.of(member), "refund", "1", "2");

        assertThat(ask(1, 0).allowed()).as("the refunded request's room").isTrue();
        assertThat(ask(1, 0).allowed()).isFalse();
    }

    @Test
    void shouldAllowABurstOfTwoSecondsWorthThenRefuseTheMemberWithAWait() {
        for (int i = 0; i < 4; i++) {
            assertThat(ask(2, 0).allowed()).as("request %d of the burst", i + 1).isTrue();
        }
        RateLimits.Verdict refused = ask(2, 0);
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.scope()).isEqualTo("member");
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        assertThat(REDIS.getExpire(member))
                .as("the key expires once the bucket is full again")
                .isBetween(1L, 3L);
        assertThat(REDIS.hasKey(address)).as("a limit that is off keeps no key").isFalse();
    }

    @Test
    void shouldChargeNothingWhenRefused() throws InterruptedException {
        for (int i = 0; i < 2; i++) {
            assertThat(ask(1, 0).allowed()).isTrue();
        }
        String charged = REDIS.opsForValue().get(member);
        for (int i = 0; i < 5; i++) {
            assertThat(ask(1, 0).allowed()).isFalse();
        }
        assertThat(REDIS.opsForValue().get(member)).isEqualTo(charged);
        Thread.sleep(1_100);
        assertThat(ask(1, 0).allowed()).as("one refilled in a second").isTrue();
    }

    @Test
    void shouldRefuseByAddressWhenTheMemberStillHasRoomAndChargeNeither() {
        assertThat(ask(100, 1).allowed()).isTrue();
        assertThat(ask(100, 1).allowed()).isTrue();
        String memberCharge = REDIS.opsForValue().get(member);

        RateLimits.Verdict refused = ask(100, 1);
        assertThat(refused.scope()).isEqualTo("address");
        assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        assertThat(REDIS.opsForValue().get(member)).isEqualTo(memberCharge);
    }

    @Test
    void shouldNeverRefuseWhenBothLimitsAreOff() {
        for (int i = 0; i < 50; i++) {
            assertThat(ask(0, 0).allowed()).isTrue();
        }
        assertThat(REDIS.hasKey(member)).isFalse();
    }

    @Test
    void shouldAnswerTheLongerWaitWhenBothLimitsRefuse() {
        // both 1/s with a burst of 2, both used up: the member's for about 2 s more, the address's for about 4 s
        long now = redisMicros();
        REDIS.opsForValue().set(member, Long.toString(now + 3_000_000L));
        REDIS.opsForValue().set(address, Long.toString(now + 5_000_000L));

        RateLimits.Verdict refused = ask(1, 1);
        assertThat(refused.scope()).isEqualTo("address");
        assertThat(refused.retryAfterSeconds()).isBetween(3L, 4L);
    }

    @Test
    void shouldTreatAValueItCannotReadAsAFullBucket() {
        REDIS.opsForValue().set(member, "not a number");

        assertThat(ask(2, 0).allowed()).isTrue();
        assertThat(REDIS.opsForValue().get(member)).matches("[0-9]+");
    }

    private static long redisMicros() {
        List<?> time = REDIS.execute(
                RedisScript.of("local t = redis.call('TIME') return {tonumber(t[1]), tonumber(t[2])}", List.class),
                List.of());
        return ((Number) time.get(0)).longValue() * 1_000_000L + ((Number) time.get(1)).longValue();
    }
}
