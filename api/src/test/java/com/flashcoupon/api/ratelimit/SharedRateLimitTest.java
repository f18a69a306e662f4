package com.flashcoupon.api.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.test.web.reactive.server.EntityExchangeResult;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Two api instances sharing one Redis hold one member (and one address) to one limit between them; a coupon's
 * endpoints count per coupon, checked and charged by the admission and status scripts themselves. Every test hammers
 * a coupon of its own, so that no test starts with a bucket another one emptied (all of them ask from 127.0.0.1).
 */
class SharedRateLimitTest {

    private static EmbeddedKafkaKraftBroker kafka;
    private static final List<ConfigurableApplicationContext> instances = new ArrayList<>();

    @BeforeAll
    static void startTwoInstances() {
        // its own property name: the default one is global and would point other test classes at this broker
        kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.brokerListProperty("flash-coupon.private.kafka");
        kafka.afterPropertiesSet();
        Map<String, String> limits = Map.of(
                "coupon.ratelimit.member-per-second",
                "2",
                "coupon.ratelimit.address-per-second",
                "5",
                "coupon.redemption.caller-per-second",
                "2");
        for (int i = 0; i < 2; i++) {
            instances.add(ApiInstance.start(kafka.getBrokersAsString(), limits));
        }
    }

    @AfterAll
    static void stop() {
        instances.forEach(ConfigurableApplicationContext::close);
        kafka.destroy();
    }

    /** Tokens a bucket of {@code perSecond} can have refilled since {@code started}, rounded up. */
    private static int refilled(int perSecond, long started) {
        return (int) Math.ceil(perSecond * (System.nanoTime() - started) / 1e9);
    }

    private static WebTestClient instance(int i) {
        int port =
                ((WebServerApplicationContext) instances.get(i)).getWebServer().getPort();
        return WebTestClient.bindToServer().baseUrl("http://127.0.0.1:" + port).build();
    }

    private static EntityExchangeResult<byte[]> ask(int instance, long couponId, String member) {
        return instance(instance)
                .get()
                .uri("/api/v1/coupons/" + couponId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange()
                .expectBody()
                .returnResult();
    }

    @Test
    void shouldHoldOneMemberToOneLimitAcrossBothInstances() {
        // a coupon of its own, in Redis: its reads are charged to its own allowance only (an id that does not exist
        // would be charged to the member's and the address's overall allowance too, shared by every test here)
        long coupon = createCoupon();
        String member = "hammer-" + System.nanoTime();
        int limited = 0;
        int passed = 0;
        long started = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            EntityExchangeResult<byte[]> result = ask(i % 2, coupon, member);
            if (result.getStatus().value() == 429) {
                limited++;
                assertThat(result.getResponseHeaders().getFirst("Retry-After"))
                        .isNotNull()
                        .matches("[1-9][0-9]*");
                assertThat(new String(result.getResponseBodyContent())).contains("\"code\":\"RATE_LIMITED\"");
            } else {
                passed++;
            }
        }
        // a burst of 2 s x 2/s = 4 between both instances, plus what refills meanwhile; each on its own would pass 8
        assertThat(passed).isBetween(4, 4 + refilled(2, started));
        assertThat(limited).isEqualTo(10 - passed);
    }

    @Test
    void shouldLimitAnEncodedPathThatRoutingServes() {
        long coupon = createCoupon();
        String member = "encoded-" + System.nanoTime();
        int port =
                ((WebServerApplicationContext) instances.get(0)).getWebServer().getPort();
        // an absolute URI is sent as it is: "%61" is "a", so routing serves /api/v1/coupons/{id}
        URI encoded = URI.create("http://127.0.0.1:" + port + "/%61pi/v1/coupons/" + coupon);
        List<Integer> statuses = new ArrayList<>();
        String firstBody = null;
        long started = System.nanoTime();
        for (int i = 0; i < 10; i++) {
            EntityExchangeResult<byte[]> result = WebTestClient.bindToServer()
                    .build()
                    .get()
                    .uri(encoded)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                    .exchange()
                    .expectBody()
                    .returnResult();
            statuses.add(result.getStatus().value());
            firstBody = firstBody == null ? new String(result.getResponseBodyContent()) : firstBody;
        }
        // served: the coupon controller's view of the coupon, until the member's burst of 4 is spent
        assertThat(firstBody).contains("\"id\":" + coupon);
        assertThat(statuses).containsOnly(200, 429);
        long passed = statuses.stream().filter(status -> status == 200).count();
        assertThat(passed).isBetween(4L, 4L + refilled(2, started));
    }

    @Test
    void shouldHoldOneAddressToOneLimitWhateverTheMembers() {
        // new members until the first refusal: the address's burst, 2 s x 5/s = 10 between both instances, plus what
        // refilled meanwhile; members differ, so only the address limit applies. However slow the machine, a refusal
        // comes as long as the requests come faster than 5 a second, which any machine does by far.
        long coupon = createCoupon();
        int passed = 0;
        int status = 0;
        long started = System.nanoTime();
        for (int i = 0; i < 500 && status != 429; i++) {
            status = ask(i % 2, coupon, "crowd-" + System.nanoTime() + "-" + i)
                    .getStatus()
                    .value();
            if (status != 429) {
                passed++;
            }
        }
        assertThat(status).as("the address limit refused a request").isEqualTo(429);
        assertThat(passed).isBetween(10, 10 + refilled(5, started));
    }

    /**
     * Security review N2: the redemption API is limited per caller (the token's {@code sub}), across both instances:
     * one order service's flood is refused 429 with {@code Retry-After}, while another order service is served.
     */
    @Test
    void shouldHoldOneRedemptionCallerToOneLimitAcrossBothInstances() {
        String flooding = TestEnvironment.token(
                "flood-" + System.nanoTime(),
                List.of("coupon-redeemer"),
                Instant.now().plusSeconds(600));
        String calm = TestEnvironment.token(
                "calm-" + System.nanoTime(),
                List.of("coupon-redeemer"),
                Instant.now().plusSeconds(600));
        int passed = 0;
        EntityExchangeResult<byte[]> result = null;
        long started = System.nanoTime();
        // until the first refusal: the caller's burst, 2 s x 2/s = 4 between both instances, plus what refilled
        for (int i = 0; i < 500; i++) {
            result = redemptions(i % 2, flooding);
            if (result.getStatus().value() == 429) {
                break;
            }
            assertThat(result.getStatus().value()).isEqualTo(200);
            passed++;
        }
        assertThat(result.getStatus().value())
                .as("the caller's limit refused a request")
                .isEqualTo(429);
        assertThat(passed).isBetween(4, 4 + refilled(2, started));
        assertThat(result.getResponseHeaders().getFirst("Retry-After")).matches("[1-9][0-9]*");
        assertThat(new String(result.getResponseBodyContent())).contains("\"code\":\"RATE_LIMITED\"");

        assertThat(redemptions(0, calm).getStatus().value()).isEqualTo(200);
        assertThat(redemptions(1, calm).getStatus().value()).isEqualTo(200);
    }

    private static EntityExchangeResult<byte[]> redemptions(int instance, String token) {
        return instance(instance)
                .get()
                .uri("/internal/v1/redemptions?orderId=none")
                .header("Authorization", "Bearer " + token)
                .exchange()
                .expectBody()
                .returnResult();
    }

    private static long createCoupon() {
        return ApiInstance.createCoupon(instance(0), "limits", 100);
    }

    private static int call(int instance, String method, String path, String member) {
        return instance(instance)
                .method(org.springframework.http.HttpMethod.valueOf(method))
                .uri(path)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange()
                .returnResult(String.class)
                .getStatus()
                .value();
    }

    @Test
    void shouldChargeAdmissionsAndStatusReadsOfOneCouponToOneAllowancePerCoupon() {
        long first = createCoupon();
        long second = createCoupon();
        String member = "one-step-" + System.nanoTime();
        String admit = "/api/v1/coupons/" + first + "/issue-requests";
        List<Integer> statuses = new ArrayList<>();
        long started = System.nanoTime();
        for (int i = 0; i < 8; i++) {
            // admissions and status reads on both instances: one allowance (2/s, a burst of 4) for this coupon
            statuses.add(call(i % 2, i % 2 == 0 ? "POST" : "GET", i % 2 == 0 ? admit : admit + "/me", member));
        }
        assertThat(statuses.get(0)).as("the first admission").isEqualTo(202);
        assertThat(statuses).containsOnly(202, 200, 429);
        long passed = statuses.stream().filter(status -> status != 429).count();
        assertThat(passed).isBetween(4L, 4L + refilled(2, started));
        assertThat(TestEnvironment.redis().opsForZSet().zCard("{cpn:" + first + "}:queue"))
                .as("admitted once")
                .isEqualTo(1L);

        // another coupon has its own allowance; the wallet (no coupon) has the member's own
        assertThat(call(1, "POST", "/api/v1/coupons/" + second + "/issue-requests", member))
                .isEqualTo(202);
        assertThat(call(0, "GET", "/api/v1/me/coupons", member)).isEqualTo(200);
    }

    @Test
    void shouldChargeNothingForAnAdmissionItRefuses() {
        long coupon = createCoupon();
        String member = "refused-" + System.nanoTime();
        String admit = "/api/v1/coupons/" + coupon + "/issue-requests";
        String limitKey = CouponKeys.memberLimit(coupon, member);
        while (call(0, "POST", admit, member) != 429) {
            // spend the burst
        }
        long before = Long.parseLong(TestEnvironment.redis().opsForValue().get(limitKey));
        int refused = 0;
        int passed = 0;
        for (int i = 0; i < 10; i++) {
            if (call(i % 2, "POST", admit, member) == 429) {
                refused++;
            } else {
                passed++; // the bucket refilled meanwhile (a busy machine): that one was charged, rightly
            }
        }
        long after = Long.parseLong(TestEnvironment.redis().opsForValue().get(limitKey));

        assertThat(refused).isPositive();
        // the member's limit (2/s) moves by 500 ms per request let through, and not at all per refusal
        assertThat(after - before).isEqualTo(passed * 500_000L);
    }
}
