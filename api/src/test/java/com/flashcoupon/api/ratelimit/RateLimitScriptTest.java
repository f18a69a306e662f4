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
 *
 * <p>On the test's clock, not Redis': the script runs as the api sends it, behind {@link #TEST_CLOCK}, which answers
 * its {@code TIME} with {@link #now} and keeps its keys' expiry on that clock too. A bucket therefore refills only when
 * a test moves {@link #now}, and a stall of the machine between two asks (once: more than a second, and the refusals
 * the tests expect were allowed) changes nothing.
 */
class RateLimitScriptTest {

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();

    /**
     * Put in front of the script: a local {@code redis} whose {@code call} answers {@code TIME} with the last argument
     * (microseconds, the test's clock) and keeps the expiry a {@code SET ... PX} asks for on that clock ({@code
     * <key>:expires-at}, which {@code GET} and {@code PTTL} read); the real key lives ten minutes more, so Redis' own
     * clock expires nothing the test still reads. The script's own arguments are unchanged: it reads none past its
     * limits'.
     */
    private static final String TEST_CLOCK = """
            local real = redis
            local now_us = tonumber(ARGV[#ARGV])
            local function expires_at(key) return tonumber(real.call('GET', key .. ':expires-at')) end
            local function gone(key) local at = expires_at(key) return at ~= nil and at <= now_us end
            local redis = setmetatable({}, {__index = real})
            redis.call = function(command, key, ...)
              local args = {...}
              if command == 'TIME' then
                return {string.format('%d', math.floor(now_us / 1000000)), string.format('%d', now_us % 1000000)}
              elseif command == 'GET' then
                if gone(key) then return false end
              elseif command == 'PTTL' then
                if gone(key) then return -2 end
                local at = expires_at(key)
                if at == nil then return real.call('PTTL', key) end
                return math.ceil((at - now_us) / 1000)
              elseif command == 'DEL' then
                real.call('DEL', key .. ':expires-at')
              elseif command == 'SET' and args[2] == 'PX' then
                local px = tonumber(args[3])
                real.call('SET', key .. ':expires-at', string.format('%d', now_us + px * 1000), 'PX', px + 600000)
                return real.call('SET', key, args[1], 'PX', px + 600000)
              end
              return real.call(command, key, ...)
            end
            """;

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SCRIPT = RedisScript.of(TEST_CLOCK + RateLimits.SCRIPT.text(), List.class);

    private String member;
    private String address;

    /** The script's clock, in microseconds: Redis' own at the start of each test, then moved by the test alone. */
    private long now;

    @BeforeEach
    void freshKeysAndClock() {
        long unique = System.nanoTime();
        member = "{cpn:" + unique + "}:rl:m:script-test";
        address = "{cpn:" + unique + "}:rl:a:script-test";
        now = redisMicros();
    }

    private RateLimits.Verdict ask(int memberPerSecond, int addressPerSecond) {
        List<?> reply = REDIS.execute(
                SCRIPT,
                List.of(member, address),
                "charge",
                Integer.toString(memberPerSecond),
                Long.toString(RateLimits.burst(memberPerSecond)),
                Integer.toString(addressPerSecond),
                Long.toString(RateLimits.burst(addressPerSecond)),
                Long.toString(now));
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

        REDIS.execute(SCRIPT, List.of(member), "refund", "1", "2", Long.toString(now));

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
        assertThat(ttlMillis(member))
                .as("the key expires once the bucket is full again: 4 requests at 2/s, 2 s from now")
                .isEqualTo(2_001L);
        assertThat(REDIS.hasKey(address)).as("a limit that is off keeps no key").isFalse();
    }

    @Test
    void shouldChargeNothingWhenRefused() {
        for (int i = 0; i < 2; i++) {
            assertThat(ask(1, 0).allowed()).isTrue();
        }
        String charged = REDIS.opsForValue().get(member);
        for (int i = 0; i < 5; i++) {
            assertThat(ask(1, 0).allowed()).isFalse();
        }
        assertThat(REDIS.opsForValue().get(member)).isEqualTo(charged);
        now += 999_999;
        assertThat(ask(1, 0).allowed())
                .as("not refilled a microsecond before the second")
                .isFalse();
        now += 1;
        assertThat(ask(1, 0).allowed()).as("one refilled in a second").isTrue();
        assertThat(ask(1, 0).allowed()).as("and only one").isFalse();
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
        REDIS.opsForValue().set(member, Long.toString(now + 3_000_000L));
        REDIS.opsForValue().set(address, Long.toString(now + 5_000_000L));

        RateLimits.Verdict refused = ask(1, 1);
        assertThat(refused.scope()).isEqualTo("address");
        assertThat(refused.retryAfterSeconds())
                .as("the address's bucket lets one through 4 s from now")
                .isEqualTo(4L);
    }

    @Test
    void shouldTreatAValueItCannotReadAsAFullBucket() {
        REDIS.opsForValue().set(member, "not a number");

        assertThat(ask(2, 0).allowed()).isTrue();
        assertThat(REDIS.opsForValue().get(member)).matches("[0-9]+");
    }

    /** The milliseconds until the key expires, on the script's clock. */
    private long ttlMillis(String key) {
        return Long.parseLong(REDIS.opsForValue().get(key + ":expires-at")) / 1000 - now / 1000;
    }

    private static long redisMicros() {
        List<?> time = REDIS.execute(
                RedisScript.of("local t = redis.call('TIME') return {tonumber(t[1]), tonumber(t[2])}", List.class),
                List.of());
        return ((Number) time.get(0)).longValue() * 1_000_000L + ((Number) time.get(1)).longValue();
    }
}
