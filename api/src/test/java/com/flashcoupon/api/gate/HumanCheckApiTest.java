package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.Tokens;
import com.flashcoupon.contract.CouponKeys;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The human check (issue 26) through the api against real Redis, MySQL and Kafka: a proof-of-work event admits only
 * solved proofs bound to the member and the event; a siteverify event asks a local server that speaks the protocol
 * Turnstile, reCAPTCHA and hCaptcha share, and fails closed when it does not answer.
 */
@ApiTest
// the local siteverify server speaks plain HTTP, which only the local profile accepts (elsewhere: https or no start)
@ActiveProfiles("local")
class HumanCheckApiTest extends ApiTestBase {

    /** Tokens the local siteverify server answers: success, refusal, and one it never answers in time. */
    private static final String HUMAN = "human-token";

    private static final String BOT = "bot-token";
    private static final String STUCK = "stuck-token";

    /**
     * What the local siteverify server answers for each token, beyond {@code success}: by default a reCAPTCHA v3 answer
     * that every check accepts; each other token gets one field wrong (or missing). Times from the test's clock.
     */
    private static Map<String, Object> answer(String token) {
        Map<String, Object> answer = new HashMap<>(Map.of(
                "success",
                !BOT.equals(token),
                "hostname",
                "shop.example",
                "action",
                "issue",
                "challenge_ts",
                Instant.now().minusSeconds(5).toString(),
                "score",
                0.9));
        switch (token) {
            case "android-token" -> {
                answer.remove("hostname");
                answer.put("apk_package_name", "com.example.shop");
            }
            case "turnstile-token" -> answer.remove("score"); // Turnstile and hCaptcha give no score
            case "wrong-host-token" -> answer.put("hostname", "evil.example");
            case "no-host-token" -> answer.remove("hostname");
            case "wrong-package-token" -> {
                answer.remove("hostname");
                answer.put("apk_package_name", "com.evil.clone");
            }
            case "wrong-action-token" -> answer.put("action", "login");
            case "old-token" ->
                answer.put("challenge_ts", Instant.now().minusSeconds(600).toString());
            case "no-time-token" -> answer.remove("challenge_ts");
            case "low-score-token" -> answer.put("score", 0.1);
            default -> {}
        }
        return answer;
    }

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final List<Map<String, String>> FORMS = new CopyOnWriteArrayList<>();
    private static final CountDownLatch RELEASE = new CountDownLatch(1);
    private static final HttpServer SITEVERIFY = siteverify();

    private final StringRedisTemplate redis = TestEnvironment.redis();

    @DynamicPropertySource
    static void humanCheck(DynamicPropertyRegistry registry) {
        registry.add(
                "coupon.human-check.verify-url",
                () -> "http://127.0.0.1:" + SITEVERIFY.getAddress().getPort() + "/siteverify");
        registry.add("coupon.human-check.verify-secret", () -> "site-secret");
        // generous: every test's local answers (200 in a row in one of them) must come within it on a busy machine;
        // only the stuck token waits it out, and it stays below the api's request time-out (10 s)
        registry.add("coupon.human-check.verify-timeout", () -> "5s");
        registry.add("coupon.human-check.secret", () -> "a-secret-of-at-least-32-bytes-for-the-tests");
        registry.add("coupon.human-check.allowed-hostnames", () -> "shop.example,www.shop.example");
        registry.add("coupon.human-check.allowed-app-packages", () -> "com.example.shop");
        registry.add("coupon.human-check.expected-action", () -> "issue");
        registry.add("coupon.human-check.max-token-age", () -> "2m");
        registry.add("coupon.human-check.min-score", () -> "0.5");
        // the test client is the ingress: it says who the member is in X-Forwarded-For
        registry.add("coupon.ratelimit.trusted-proxies", () -> "127.0.0.1,::1");
    }

    private static HttpServer siteverify() {
        try {
            HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
            server.createContext("/siteverify", exchange -> {
                Map<String, String> form = new HashMap<>();
                for (String pair :
                        new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8).split("&")) {
                    String[] kv = pair.split("=", 2);
                    form.put(kv[0], kv.length > 1 ? URLDecoder.decode(kv[1], StandardCharsets.UTF_8) : "");
                }
                FORMS.add(form);
                if (STUCK.equals(form.get("response"))) {
                    try {
                        RELEASE.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                byte[] body = JSON.writeValueAsBytes(answer(form.getOrDefault("response", "")));
                exchange.getResponseHeaders().add("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, body.length);
                exchange.getResponseBody().write(body);
                exchange.close();
            });
            server.start();
            return server;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @AfterAll
    static void stop() {
        RELEASE.countDown();
        SITEVERIFY.stop(0);
    }

    private long event(Map<String, Object> humanCheck) {
        return createCoupon(Map.of(
                "name",
                "Checked",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "humanCheck",
                humanCheck));
    }

    private Map<?, ?> challenge(long id, String member) {
        return challengeWith(id, Tokens.member(member));
    }

    private Map<?, ?> challengeWith(long id, String token) {
        return client().get()
                .uri("/api/v1/coupons/{id}/challenge", id)
                .header("Authorization", "Bearer " + token)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    private WebTestClient.ResponseSpec ask(long id, String member, String proof) {
        var request = client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Tokens.member(member));
        if (proof != null) {
            request = request.header(GateChecks.PROOF_HEADER, proof);
        }
        return request.exchange();
    }

    private String solved(long id, String member) {
        Map<?, ?> challenge = challenge(id, member);
        return ProofOfWork.solve((String) challenge.get("challenge"), (Integer) challenge.get("difficultyBits"));
    }

    @Test
    void shouldAdmitOnlySolvedProofsBoundToTheMemberAndTheEvent() {
        long id = event(Map.of("type", "PROOF_OF_WORK", "difficultyBits", 8));
        long other = event(Map.of("type", "PROOF_OF_WORK", "difficultyBits", 8));
        Map<?, ?> challenge = challenge(id, "m-1");
        assertThat(challenge.get("difficultyBits")).isEqualTo(8);
        assertThat((String) challenge.get("challenge")).doesNotContain(":");
        assertThat(Instant.parse((String) challenge.get("expiresAt"))).isAfter(Instant.now());

        expectProblem(ask(id, "m-1", null), 428, "PROOF_REQUIRED");
        expectProblem(ask(id, "m-1", unsolved((String) challenge.get("challenge"), 8)), 403, "PROOF_INVALID");
        expectProblem(ask(id, "m-2", solved(id, "m-1")), 403, "PROOF_INVALID"); // another member's
        expectProblem(ask(id, "m-1", solved(other, "m-1")), 403, "PROOF_INVALID"); // another event's
        expectProblem(ask(id, "m-1", "v1.garbage:1"), 403, "PROOF_INVALID");

        ask(id, "m-1", ProofOfWork.solve((String) challenge.get("challenge"), 8))
                .expectStatus()
                .isAccepted();
        // asking again needs no new proof; the proof used again admits nobody else
        ask(id, "m-1", null).expectStatus().isOk();
        ask(id, "m-1", ProofOfWork.solve((String) challenge.get("challenge"), 8))
                .expectStatus()
                .isOk();

        assertThat(redis.opsForZSet().range(CouponKeys.queue(id), 0, -1)).containsExactly("m-1");
        assertThat(redis.opsForHash().get(CouponKeys.stats(id), "refusedProof")).isEqualTo("5");
    }

    /** A nonce whose proof has fewer zero bits than asked. */
    private static String unsolved(String challenge, int bits) {
        for (long nonce = 0; ; nonce++) {
            String proof = challenge + ":" + nonce;
            if (ProofOfWork.leadingZeroBits(proof) < bits) {
                return proof;
            }
        }
    }

    @Test
    void shouldAskMoreWorkOfARiskierAccountAndNotLetItUseAnEasierChallenge() {
        long id = event(Map.of("type", "PROOF_OF_WORK", "difficultyBits", 6));
        Map<?, ?> risky = challengeWith(id, Tokens.member("m-risky", Map.of("coupon_risk", "high")));
        // two levels of 2 bits each on top of the event's 6 (COUPON_HUMAN_CHECK_RISK_EXTRA_BITS); a trusted account, or
        // one whose token says nothing of its risk, gets the event's own
        assertThat(risky.get("difficultyBits")).isEqualTo(10);
        assertThat(challenge(id, "m-trusted").get("difficultyBits")).isEqualTo(6);

        // an easier challenge is someone else's: it fails its signature for the risky member
        expectProblem(ask(id, "m-risky", solved(id, "m-trusted")), 403, "PROOF_INVALID");
        String proof = ProofOfWork.solve((String) risky.get("challenge"), 10);
        ask(id, "m-risky", proof).expectStatus().isAccepted();
    }

    @Test
    void shouldRefuseAnExpiredChallenge() {
        long id = event(Map.of("type", "PROOF_OF_WORK", "difficultyBits", 1));
        String proof = solved(id, "m-1");
        String[] parts = proof.split("\\.");
        // the same challenge with an expiry in the past fails its signature; an honest one that expired fails its time
        String expired = String.join(".", parts[0], parts[1], "1", parts[3], parts[4], parts[5]);

        expectProblem(ask(id, "m-1", expired), 403, "PROOF_INVALID");
    }

    @Test
    void shouldAnswerAChallengeOfZeroBitsForAnEventWithoutProofOfWork() {
        long id = createCoupon(5, 1);

        assertThat(challenge(id, "m-1").get("difficultyBits")).isEqualTo(0);
        ask(id, "m-1", null).expectStatus().isAccepted();
    }

    @Test
    void shouldAskTheSiteverifyServiceAndAdmitOnlyWhatItAccepts() {
        long id = event(Map.of("type", "SITEVERIFY"));

        expectProblem(ask(id, "m-1", null), 428, "PROOF_REQUIRED");
        expectProblem(ask(id, "m-1", BOT), 403, "PROOF_INVALID");
        ask(id, "m-1", HUMAN).expectStatus().isAccepted();
        ask(id, "m-1", null).expectStatus().isOk();

        assertThat(FORMS)
                .anySatisfy(form -> assertThat(form)
                        .containsEntry("secret", "site-secret")
                        .containsEntry("response", HUMAN)
                        .containsKey("remoteip"));
        assertThat(redis.opsForZSet().range(CouponKeys.queue(id), 0, -1)).containsExactly("m-1");
    }

    /**
     * Security review N4: the service's {@code success} alone admits nobody. Each answer with one field wrong (or
     * missing) is refused 403 PROOF_INVALID, its {@code check} naming what failed, and admits nobody.
     */
    @Test
    void shouldRefuseEveryAnswerThatFailsACheckOfWhatTheServiceSays() {
        long id = event(Map.of("type", "SITEVERIFY"));
        Map<String, String> refused = Map.of(
                BOT,
                "REFUSED",
                "wrong-host-token",
                "HOSTNAME",
                "no-host-token",
                "HOSTNAME",
                "wrong-package-token",
                "APP_PACKAGE",
                "wrong-action-token",
                "ACTION",
                "old-token",
                "TOKEN_AGE",
                "no-time-token",
                "TOKEN_AGE",
                "low-score-token",
                "SCORE");
        refused.forEach((token, check) -> expectProblem(ask(id, "wf-" + token, token), 403, "PROOF_INVALID")
                .jsonPath("$.check")
                .isEqualTo(check));

        ask(id, "wf-web", HUMAN).expectStatus().isAccepted();
        ask(id, "wf-android", "android-token").expectStatus().isAccepted();
        ask(id, "wf-turnstile", "turnstile-token").expectStatus().isAccepted();
        assertThat(redis.opsForZSet().range(CouponKeys.queue(id), 0, -1))
                .containsExactlyInAnyOrder("wf-web", "wf-android", "wf-turnstile");
    }

    /** The member's address, as the rate limits see it (behind a trusted proxy: X-Forwarded-For), is the remoteip. */
    @Test
    void shouldSendTheMembersAddressAsRemoteip() {
        long id = event(Map.of("type", "SITEVERIFY"));
        String token = HUMAN + "-" + id;

        client().post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Tokens.member("ip-1"))
                .header("X-Forwarded-For", "198.51.100.1, 203.0.113.7")
                .header(GateChecks.PROOF_HEADER, token)
                .exchange()
                .expectStatus()
                .isAccepted();

        assertThat(FORMS)
                .filteredOn(form -> token.equals(form.get("response")))
                .singleElement()
                .satisfies(form -> assertThat(form).containsEntry("remoteip", "203.0.113.7"));
    }

    @Test
    void shouldFailClosedWhenTheSiteverifyServiceDoesNotAnswer() {
        long id = event(Map.of("type", "SITEVERIFY"));

        expectProblem(ask(id, "m-1", STUCK), 503, "UNAVAILABLE");

        assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isZero();
    }

    /**
     * What a siteverify check adds to an admission, printed (SITEVERIFY-COST-FIGURE), never asserted: admissions of
     * distinct members on an event without a check and on a siteverify one (a local verifier answering at once),
     * interleaved, one at a time, end to end through HTTP.
     */
    @Test
    void printWhatASiteverifyCheckCosts() {
        long plain = createCoupon(1_000, 1);
        long checked = createCoupon(Map.of(
                "name",
                "Checked",
                "totalQuantity",
                1_000,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "humanCheck",
                Map.of("type", "SITEVERIFY")));
        int members = 200;
        long plainNanos = 0;
        long checkedNanos = 0;
        for (int i = 0; i < members; i++) {
            long started = System.nanoTime();
            ask(plain, "cost-" + i, null).expectStatus().isAccepted();
            plainNanos += System.nanoTime() - started;
            started = System.nanoTime();
            ask(checked, "cost-" + i, HUMAN).expectStatus().isAccepted();
            checkedNanos += System.nanoTime() - started;
        }
        System.out.printf(
                "SITEVERIFY-COST-FIGURE %d admissions each: %.2f ms without a check, %.2f ms with siteverify (local"
                        + " verifier)%n",
                members, plainNanos / 1e6 / members, checkedNanos / 1e6 / members);
    }
}
