package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongFunction;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.HttpMethod;
import org.springframework.test.context.TestPropertySource;

/**
 * Security review finding 3 (issue 24, item 2): requests that no rate limit charged. Admissions, coupon reads and
 * status reads about coupon ids that do not exist, requests with no token or a refused one, and paths below {@code
 * /api/} that no route serves: each is charged to an overall allowance (the member's and the address's, or the
 * address's alone without a member) and refused with 429 once it is used up, on the lean admission path and through
 * Spring Security's chain alike. An id MySQL said it does not know is answered without asking MySQL again for a few
 * seconds. This test's client is a trusted proxy, so each request can come from an address of its own.
 */
@ApiTest
@TestPropertySource(
        properties = {
            "coupon.ratelimit.trusted-proxies=127.0.0.1,::1",
            "coupon.ratelimit.address-per-second=1",
            "coupon.ratelimit.member-per-second=1"
        })
class UnchargedRequestsTest extends ApiTestBase {

    /** Requests asked before the burst of two is used up, allowing for a refill or two on a slow machine. */
    private static final int MOST = 10;

    @LocalServerPort
    private int port;

    private static final AtomicInteger ADDRESSES = new AtomicInteger();

    /** An address no other request of this class used: its allowance is whole. */
    private static String freshAddress() {
        int n = ADDRESSES.incrementAndGet();
        return "2001:db8:" + Integer.toHexString(n) + "::1";
    }

    /** An id far above any coupon a test creates. */
    private static long unknownId() {
        return ThreadLocalRandom.current().nextLong(1_000_000_000_000L, 1_000_000_000_000_000L);
    }

    private Answer ask(HttpMethod method, String path, String token, String address) {
        var request = client().method(method)
                .uri(URI.create("http://127.0.0.1:" + port + path))
                .header("X-Forwarded-For", address);
        if (token != null) {
            request = request.header("Authorization", "Bearer " + token);
        }
        var result = request.exchange().expectBody(String.class).returnResult();
        return new Answer(
                result.getStatus().value(),
                result.getResponseHeaders().getFirst("Retry-After"),
                result.getResponseBody());
    }

    private record Answer(int status, String retryAfter, String body) {}

    /** Asks until a 429 (at most {@link #MOST} times): every answer, the 429 last. */
    private static List<Answer> untilRefused(java.util.function.Supplier<Answer> next) {
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < MOST; i++) {
            Answer answer = next.get();
            answers.add(answer);
            if (answer.status() == 429) {
                break;
            }
        }
        return answers;
    }

    private static void expectRefusedAfter(List<Answer> answers, int status, String what) {
        Answer last = answers.getLast();
        assertThat(last.status()).as("%s: the last of %s", what, answers).isEqualTo(429);
        assertThat(last.body()).contains("\"code\":\"RATE_LIMITED\"");
        assertThat(last.retryAfter()).as("Retry-After").isNotBlank();
        assertThat(answers.subList(0, answers.size() - 1))
                .as(what)
                .allSatisfy(answer -> assertThat(answer.status()).isEqualTo(status));
    }

    /** Paths about one coupon id, on the lean admission path and through the chain. */
    private static final List<PathOf> UNKNOWN_ID_PATHS = List.of(
            new PathOf(HttpMethod.POST, id -> "/api/v1/coupons/" + id + "/issue-requests", "admission, lean path"),
            new PathOf(HttpMethod.POST, id -> "/api/v1/coupons/" + encoded(id) + "/issue-requests", "admission, chain"),
            new PathOf(HttpMethod.GET, id -> "/api/v1/coupons/" + id, "coupon"),
            new PathOf(HttpMethod.GET, id -> "/api/v1/coupons/" + id + "/issue-requests/me", "status"));

    private record PathOf(HttpMethod method, LongFunction<String> path, String name) {}

    /** The id with every digit percent-encoded: routing reads the same id, the lean path leaves it to the chain. */
    private static String encoded(long id) {
        StringBuilder text = new StringBuilder();
        for (char digit : Long.toString(id).toCharArray()) {
            text.append("%3").append(digit);
        }
        return text.toString();
    }

    @Test
    void shouldChargeUnknownCouponIdsToTheMembersOverallAllowance() {
        for (PathOf path : UNKNOWN_ID_PATHS) {
            String token =
                    TestEnvironment.memberToken("unknown-ids-" + path.name().replaceAll("[^a-z]", ""));
            // a new address each time: only the member's allowance can refuse
            var answers = untilRefused(() -> ask(path.method(), path.path().apply(unknownId()), token, freshAddress()));
            expectRefusedAfter(answers, 404, path.name());
        }
    }

    @Test
    void shouldChargeUnknownCouponIdsToTheAddressesOverallAllowance() {
        for (PathOf path : UNKNOWN_ID_PATHS) {
            String address = freshAddress();
            AtomicInteger members = new AtomicInteger();
            // a new member each time: only the address's allowance can refuse
            var answers = untilRefused(() -> ask(
                    path.method(),
                    path.path().apply(unknownId()),
                    TestEnvironment.memberToken("many-" + members.incrementAndGet() + "-" + address.replace(":", "")),
                    address));
            expectRefusedAfter(answers, 404, path.name());
        }
    }

    @Test
    void shouldNotAskMysqlAgainAboutAnIdItJustDidNotKnow() {
        long id = unknownId();
        String path = "/api/v1/coupons/" + id + "/issue-requests";
        assertThat(ask(HttpMethod.POST, path, TestEnvironment.memberToken("cache-1"), freshAddress())
                        .status())
                .isEqualTo(404);
        // the event appears in MySQL behind the api's back: an answer from MySQL would now be 202
        jdbc.sql("INSERT INTO coupon (id, name, total_quantity, open_at, issue_rate_per_second, valid_days)"
                        + " VALUES (?, 'appears', 10, ?, 10, 30)")
                .params(id, java.sql.Timestamp.from(Instant.now().minusSeconds(60)))
                .update();
        assertThat(ask(HttpMethod.POST, path, TestEnvironment.memberToken("cache-2"), freshAddress())
                        .status())
                .as("asked again at once: answered from what MySQL said a moment ago")
                .isEqualTo(404);
        AtomicInteger members = new AtomicInteger(2);
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> ask(
                                        HttpMethod.POST,
                                        path,
                                        TestEnvironment.memberToken("cache-" + members.incrementAndGet()),
                                        freshAddress())
                                .status()
                        == 202);
    }

    @Test
    void shouldChargeRequestsWithoutAValidTokenToTheAddress() {
        // signed with a key the api does not hold. It was the token's last character set to B: no forgery one time in
        // sixteen, when the signature ended in A (the last of 43 base64url characters carries two unused bits, and
        // the decoder reads B as A)
        String forged = TestEnvironment.sign(
                "a-key-the-api-does-not-hold-0123456789abcdef",
                "forger",
                List.of(),
                Instant.now().plusSeconds(3600));
        record Case(HttpMethod method, String path, String token, String name) {}
        for (Case kind : List.of(
                new Case(HttpMethod.GET, "/api/v1/me/coupons", null, "no token"),
                new Case(HttpMethod.POST, "/api/v1/coupons/1/issue-requests", null, "admission without a token"),
                new Case(HttpMethod.POST, "/api/v1/coupons/1/issue-requests", "x.y.z", "admission, lean path"),
                new Case(HttpMethod.POST, "/api/v1/coupons/%31/issue-requests", "x.y.z", "admission, chain"),
                new Case(HttpMethod.GET, "/api/v1/coupons/1", forged, "a forged signature"),
                new Case(HttpMethod.GET, "/api/v9/nowhere", null, "an unrouted path"))) {
            String address = freshAddress();
            var answers = untilRefused(() -> ask(kind.method(), kind.path(), kind.token(), address));
            expectRefusedAfter(answers, 401, kind.name());
        }
    }

    @Test
    void shouldChargeUnroutedPathsBelowACoupon() {
        long id = createCoupon(10, 10);
        String token = TestEnvironment.memberToken("unrouted");
        var answers = untilRefused(
                () -> ask(HttpMethod.GET, "/api/v1/coupons/" + id + "/nothing-here", token, freshAddress()));
        expectRefusedAfter(answers, 404, "an unrouted path below a coupon");
    }
}
