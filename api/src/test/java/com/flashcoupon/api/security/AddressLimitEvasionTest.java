package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.RecordingResolver;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
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

    /** One address's allowance refills one request per second (burst 2). */
    private static final Duration REFILL = Duration.ofSeconds(1);

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

    /** Asks from {@code first} until refused; then once from {@code second}: its status, or 0 if a refill came first. */
    private int afterRefusal(String first, String second, String member) {
        int asked = 0;
        while (status(first, member + "-a") != 429) {
            assertThat(++asked).as("requests before the burst of 2 was used up").isLessThan(10);
        }
        long refused = System.nanoTime();
        int answer = status(second, member + "-b");
        return System.nanoTime() - refused < REFILL.toNanos() ? answer : 0;
    }

    @Test
    void shouldCountEveryAddressOfOneIpv6Slash64AsOneClient() {
        int answer = 0;
        for (int attempt = 0; attempt < 5 && answer == 0; attempt++) {
            answer = afterRefusal("2001:db8:77:1::" + (attempt + 1), "2001:db8:77:1:ffff:" + attempt + "::9", "v6");
        }
        assertThat(answer)
                .as("another address of the same /64, asked before the allowance refilled")
                .isEqualTo(429);
    }

    @Test
    void shouldGiveAnotherSlash64AnAllowanceOfItsOwn() {
        int asked = 0;
        while (status("2001:db8:78:1::1", "v6-other") != 429) {
            assertThat(++asked).as("requests before the burst of 2 was used up").isLessThan(10);
        }
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
