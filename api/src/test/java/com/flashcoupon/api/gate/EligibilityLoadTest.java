package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.RedisMonitor;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * A gated event lost from Redis with a long list: a crowd asking at once loads the list into Redis once (one MySQL
 * scan, one loader's set), the others wait for it; nobody is admitted or refused on a half list, and every ask is
 * answered as the list says once it is back.
 */
@ApiTest
class EligibilityLoadTest extends ApiTestBase {

    private static final int LISTED = 200_000;
    private static final int CROWD = 50;

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @Autowired
    private MeterRegistry meters;

    private double loads() {
        Counter counter = meters.find("coupon.gate.list.loads").counter();
        return counter == null ? 0 : counter.count();
    }

    /** A listed event, open, its list of {@link #LISTED} members written straight into MySQL (member-0, ...). */
    private long listedEvent() {
        long id = createCoupon(Map.of(
                "name",
                "Members only",
                "totalQuantity",
                1_000,
                "openAt",
                Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "validDays",
                30,
                "eligibility",
                Map.of("list", true)));
        String digit = "(SELECT 0 d UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4"
                + " UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 UNION ALL SELECT 9)";
        // 10,000 rows a statement: one statement of all of them took more than the connection's 5 s socket time-out
        // on a loaded machine (two clean-clone runs at once)
        for (int high = 0; high < LISTED / 10_000; high++) {
            jdbc.sql("INSERT INTO coupon_eligible_member (coupon_id, generation, member_id)"
                            + " SELECT ?, 1, CONCAT('member-', a.d + 10 * b.d + 100 * c.d + 1000 * e.d + 10000 * ?)"
                            + " FROM " + digit + " a CROSS JOIN " + digit + " b CROSS JOIN " + digit + " c CROSS JOIN "
                            + digit + " e")
                    .params(id, high)
                    .update();
        }
        jdbc.sql("UPDATE coupon_gate SET list_generation = 1, next_generation = 1, list_count = ? WHERE coupon_id = ?")
                .params(LISTED, id)
                .update();
        var past = java.sql.Timestamp.from(Instant.now().minusSeconds(60));
        jdbc.sql("UPDATE coupon SET open_at = ?, announce_at = ?, version = version + 1 WHERE id = ?")
                .params(past, past, id)
                .update();
        return id;
    }

    private WebTestClient.ResponseSpec ask(long id, String member) {
        return client().mutate()
                .responseTimeout(Duration.ofMinutes(3))
                .build()
                .post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Tokens.member(member))
                .exchange();
    }

    @Test
    void shouldLoadALostListOnceWhileACrowdWaits() throws Exception {
        long id = listedEvent();
        redis.delete(CouponKeys.state(id)); // Redis lost the event (and its list) entirely
        List<String> crowd = new ArrayList<>();
        for (int i = 0; i < CROWD; i++) {
            crowd.add(i % 5 == 4 ? "stranger-" + i : "member-" + (i * 3_989 % LISTED));
        }

        Pattern loadKey = Pattern.compile(Pattern.quote(CouponKeys.tag(id) + ":eligible:load:") + "[0-9a-f-]+");
        Set<String> loadKeys = ConcurrentHashMap.newKeySet();
        AtomicBoolean stop = new AtomicBoolean();
        double loadsBefore = loads();
        Map<String, Integer> first = new ConcurrentHashMap<>();
        try (var monitor = new RedisMonitor(TestEnvironment.REDIS_URL);
                var threads = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> watching = threads.submit(() -> monitor.forEachLine(
                    line -> {
                        Matcher found = loadKey.matcher(line);
                        while (found.find()) {
                            loadKeys.add(found.group());
                        }
                    },
                    stop::get));
            List<Future<?>> asks = new ArrayList<>();
            for (String member : crowd) {
                asks.add(threads.submit(() -> first.put(
                        member,
                        ask(id, member).returnResult(Void.class).getStatus().value())));
            }
            for (Future<?> ask : asks) {
                ask.get();
            }
            stop.set(true);
            watching.get();
        }

        System.out.printf(
                "ELIGIBLE-LOAD-FIGURE %d members, %d concurrent asks: first answers %s%n",
                LISTED,
                CROWD,
                first.values().stream()
                        .collect(java.util.stream.Collectors.groupingBy(
                                status -> status, java.util.TreeMap::new, java.util.stream.Collectors.counting())));
        assertThat(loadKeys).as("loaders' sets of the list ever written").hasSizeLessThanOrEqualTo(1);
        assertThat(loads() - loadsBefore).as("loads of the list from MySQL").isEqualTo(1);
        // while the list loaded, an ask was answered as the list says or with a 503 (ask again); never otherwise
        first.forEach((member, status) -> assertThat(status)
                .as(member)
                .isIn(member.startsWith("stranger") ? List.of(403, 503) : List.of(202, 503)));
        for (String member : crowd) {
            if (member.startsWith("stranger")) {
                expectProblem(ask(id, member), 403, "NOT_ELIGIBLE");
            } else {
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> ask(id, member)
                                .returnResult(Void.class)
                                .getStatus()
                                .is2xxSuccessful());
            }
        }
        assertThat(redis.opsForSet().size(CouponKeys.eligible(id))).isEqualTo(LISTED);
        assertThat(redis.opsForZSet().size(CouponKeys.queue(id)))
                .isEqualTo(crowd.stream()
                        .filter(member -> member.startsWith("member-"))
                        .count());
        assertThat(loads() - loadsBefore).as("loads of the list from MySQL").isEqualTo(1);
    }
}
