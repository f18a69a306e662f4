package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.RecordingResolver;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.test.context.TestPropertySource;

/**
 * Attacks on the address rate limit through the whole api and the real Redis, behind a trusted proxy (this test's
 * client, 127.0.0.1, writes {@code X-Forwarded-For} as a proxy would): an IPv6 host rotating through the 2^64
 * addresses of its /64, and a forwarded hop that is a host name made of hex digits, which looks like an address.
 */
@ApiTest
@TestPropertySource(
        properties = {
            "coupon.ratelimit.trusted-proxies=127.0.0.1,::1",
            "coupon.ratelimit.address-per-second=1",
            "coupon.ratelimit.member-per-second=0"
        })
class AddressLimitEvasionTest extends ApiTestBase {

    /** The longest a client's requests may take to use its burst of 2 up (they need only outpace 1/s). */
    private static final Duration REFUSED_WITHIN = Duration.ofSeconds(60);

    /** The address limits' keys, of the endpoints without a coupon ({@code RateLimits.ADDRESS_KEY}). */
    private static final String ADDRESS_KEYS = "rl:g:a:*";

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private int status(String forwardedFor, String member) {
        return client().get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .header("X-Forwarded-For", forwardedFor)
                .exchange()
                .returnResult(String.class)
                .getStatus()
                .value();
    }

    /**
     * Asks from {@code address} until refused, then holds the allowance it used up at empty for an hour: the refill
     * (1/s) no longer races the test's next request, however slow the machine. Which key the address was counted on
     * is not assumed: every address limit key made meanwhile is held.
     */
    private void useUpAndHold(String address, String member) {
        Set<String> before = redis.keys(ADDRESS_KEYS);
        long deadline = System.nanoTime() + REFUSED_WITHIN.toNanos();
        while (status(address, member) != 429) {
            assertThat(System.nanoTime() - deadline)
                    .as("a refusal from %s within %s (its requests outpace the refill of 1/s)", address, REFUSED_WITHIN)
                    .isNegative();
        }
        Set<String> made = new HashSet<>(redis.keys(ADDRESS_KEYS));
        made.removeAll(before);
        assertThat(made).as("the key the refusing allowance is kept on").isNotEmpty();
        List<?> time = redis.execute(
                RedisScript.of("local t = redis.call('TIME') return {tonumber(t[1]), tonumber(t[2])}", List.class),
                List.of());
        long nowMicros = ((Number) time.get(0)).longValue() * 1_000_000L + ((Number) time.get(1)).longValue();
        for (String key : made) {
            // the theoretical arrival time an hour ahead: the bucket is empty until then (scripts/limits.lua)
            redis.opsForValue().set(key, Long.toString(nowMicros + 3_600_000_000L), Duration.ofHours(1));
            held.add(key);
        }
    }

    private final Set<String> held = new HashSet<>();

    @AfterEach
    void release() {
        redis.delete(held);
    }

    @Test
    void shouldCountEveryAddressOfOneIpv6Slash64AsOneClient() {
        useUpAndHold("2001:db8:77:1::1", "v6-a");

        assertThat(status("2001:db8:77:1:ffff:0::9", "v6-b"))
                .as("another address of the same /64, asked before the allowance refilled")
                .isEqualTo(429);
    }

    @Test
    void shouldGiveAnotherSlash64AnAllowanceOfItsOwn() {
        useUpAndHold("2001:db8:78:1::1", "v6-other");

        assertThat(status("2001:db8:78:2::1", "v6-other")).as("the next /64").isEqualTo(200);
    }

    @Test
    void shouldNeverLookUpAForwardedHopThatIsAName() {
        for (String name : RecordingResolver.HEX_NAMES.keySet()) {
            assertThat(status("198.51.100.7, " + name, "named-hop")).isIn(200, 429);
        }
        assertThat(RecordingResolver.lookedUp()).doesNotContainAnyElementsOf(RecordingResolver.HEX_NAMES.keySet());
    }
}
