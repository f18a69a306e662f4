package com.flashcoupon.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The Java client against a local server that misbehaves as the contract allows: 503 and 429 with {@code Retry-After},
 * network errors, expiring tokens, dropped and refused streams, an event not open yet, a proof of work. Each claim must
 * still end ISSUED or FAILED as the server meant, and no retry may come sooner than {@code Retry-After}.
 */
class ClientFaultTest {

    private static final long COUPON = 7;
    private static final String ISSUE = "/api/v1/coupons/7/issue-requests";
    private static final String EVENTS = "/api/v1/coupons/7/issue-requests/me/events";
    private static final String STATUS = "/api/v1/coupons/7/issue-requests/me";

    private FaultServer server;
    private CouponClient client;
    private final List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() throws Exception {
        server = new FaultServer();
        client = client(() -> "token-1");
    }

    private CouponClient client(java.util.function.Supplier<String> token) {
        return CouponClient.builder()
                .baseUrl(server.url())
                .token(token)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(2))
                .build();
    }

    @AfterEach
    void stop() {
        client.close();
        server.close();
    }

    private ClaimResult claim() throws Exception {
        return client.claim(COUPON, updates::add).get(60, TimeUnit.SECONDS);
    }

    /** The stream answers the status the test gives, then ISSUED. */
    private void streamIssues(long walletId) {
        server.on(
                "GET",
                EVENTS,
                (exchange, call) -> exchange.stream()
                        .event("status", "7:w1", FaultServer.waiting(COUPON, 1))
                        .event("status", "7:i" + walletId, FaultServer.issued(COUPON, walletId)));
    }

    private static long millisBetween(FaultServer.Seen first, FaultServer.Seen second) {
        return (second.nanos() - first.nanos()) / 1_000_000;
    }

    @Nested
    class Overload {

        @Test
        void shouldWaitAtLeastRetryAfterOn503ThenBeAdmittedAndIssued() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> {
                if (call <= 2) {
                    exchange.with("Retry-After", "1").problem(503, "UNAVAILABLE");
                } else {
                    exchange.json(202, FaultServer.waiting(COUPON, 3));
                }
            });
            streamIssues(901);

            ClaimResult result = claim();

            assertThat(result).isEqualTo(ClaimResult.issued(COUPON, 901));
            List<FaultServer.Seen> posts = server.requests("POST", ISSUE);
            assertThat(posts).hasSize(3);
            assertThat(millisBetween(posts.get(0), posts.get(1))).isGreaterThanOrEqualTo(1_000);
            assertThat(millisBetween(posts.get(1), posts.get(2))).isGreaterThanOrEqualTo(1_000);
            assertThat(updates).anyMatch(u -> u.phase() == ClaimUpdate.Phase.RETRYING);
            assertThat(updates)
                    .anyMatch(u -> u.phase() == ClaimUpdate.Phase.WAITING
                            && Long.valueOf(3).equals(u.position()));
        }

        @Test
        void shouldWaitAtLeastRetryAfterOn429() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> {
                if (call == 1) {
                    exchange.with("Retry-After", "2").problem(429, "RATE_LIMITED");
                } else {
                    exchange.json(200, FaultServer.issued(COUPON, 5));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 5));
            List<FaultServer.Seen> posts = server.requests("POST", ISSUE);
            assertThat(millisBetween(posts.get(0), posts.get(1))).isGreaterThanOrEqualTo(2_000);
        }

        @Test
        void shouldRetryANetworkErrorAndGiveUpAfterItsAttempts() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> {
                if (call <= 2) {
                    exchange.drop();
                }
                exchange.json(202, FaultServer.issued(COUPON, 6));
            });
            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 6));

            client.close();
            client = CouponClient.builder()
                    .baseUrl(server.url())
                    .token(() -> "t")
                    .backoff(Duration.ofMillis(10), Duration.ofMillis(50))
                    .maxAttempts(3)
                    .build();
            server.on(
                    "POST",
                    ISSUE,
                    (exchange, call) -> exchange.with("Retry-After", "1").problem(503, "UNAVAILABLE"));
            int before = server.requests("POST", ISSUE).size();
            assertThat(claim()).isEqualTo(ClaimResult.failed(COUPON, "GAVE_UP"));
            assertThat(server.requests("POST", ISSUE).size() - before).isEqualTo(4);
        }
    }

    @Nested
    class Tokens {

        @Test
        void shouldAskForANewTokenOnceAfterA401() throws Exception {
            AtomicInteger asked = new AtomicInteger();
            client.close();
            client = client(() -> "token-" + asked.incrementAndGet());
            server.on("POST", ISSUE, (exchange, call) -> {
                if ("Bearer token-1".equals(exchange.header("Authorization"))) {
                    exchange.problem(401, "UNAUTHORIZED");
                } else {
                    exchange.json(202, FaultServer.issued(COUPON, 8));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 8));
            assertThat(asked).hasValue(2);
        }

        @Test
        void shouldFailUnauthorizedWhenTheNewTokenIsRefusedToo() throws Exception {
            AtomicInteger asked = new AtomicInteger();
            client.close();
            client = client(() -> "expired-" + asked.incrementAndGet());
            server.on("POST", ISSUE, (exchange, call) -> exchange.problem(401, "UNAUTHORIZED"));

            assertThat(claim()).isEqualTo(ClaimResult.failed(COUPON, "UNAUTHORIZED"));
            assertThat(asked).hasValue(2);
            assertThat(server.requests("POST", ISSUE)).hasSize(2);
        }

        @Test
        void shouldRefreshTheTokenWhenTheStreamAnswers401() throws Exception {
            AtomicInteger asked = new AtomicInteger();
            client.close();
            client = client(() -> "token-" + asked.incrementAndGet());
            server.on("POST", ISSUE, (exchange, call) -> exchange.json(202, FaultServer.waiting(COUPON, 2)));
            server.on("GET", EVENTS, (exchange, call) -> {
                if (call == 1) {
                    exchange.problem(401, "UNAUTHORIZED");
                } else {
                    exchange.stream().event("status", "7:i3", FaultServer.issued(COUPON, 3));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 3));
            assertThat(server.requests("GET", EVENTS).get(1).header("Authorization"))
                    .isEqualTo("Bearer token-2");
        }
    }

    @Nested
    class Streams {

        @Test
        void shouldOpenADroppedStreamAgainWithLastEventId() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> exchange.json(202, FaultServer.waiting(COUPON, 2)));
            server.on("GET", EVENTS, (exchange, call) -> {
                if (call == 1) {
                    // the connection ends after one event, without a final one or a reconnect event
                    exchange.stream().event("status", "7:w2", FaultServer.waiting(COUPON, 2));
                } else {
                    exchange.stream().event("status", "7:i44", FaultServer.issued(COUPON, 44));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 44));
            List<FaultServer.Seen> streams = server.requests("GET", EVENTS);
            assertThat(streams).hasSize(2);
            assertThat(streams.get(0).header("Last-Event-ID")).isNull();
            assertThat(streams.get(1).header("Last-Event-ID")).isEqualTo("7:w2");
        }

        @Test
        void shouldReadTheStatusAtTheSuggestedIntervalWhenStreamsKeepFailing() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> exchange.json(202, FaultServer.waiting(COUPON, 2)));
            server.on(
                    "GET",
                    EVENTS,
                    (exchange, call) -> exchange.with("Retry-After", "1").problem(503, "UNAVAILABLE"));
            server.on("GET", STATUS, (exchange, call) -> {
                if (call < 3) {
                    exchange.with("X-Coupon-Poll-After", "1").json(200, FaultServer.waiting(COUPON, 3 - call));
                } else {
                    exchange.json(200, FaultServer.failed(COUPON, "SOLD_OUT"));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.failed(COUPON, "SOLD_OUT"));
            assertThat(server.requests("GET", EVENTS)).hasSize(Watch.STREAM_FAILURES);
            List<FaultServer.Seen> polls = server.requests("GET", STATUS);
            assertThat(polls).hasSize(3);
            assertThat(millisBetween(polls.get(0), polls.get(1))).isGreaterThanOrEqualTo(1_000);
            assertThat(millisBetween(polls.get(1), polls.get(2))).isGreaterThanOrEqualTo(1_000);
            assertThat(updates).anyMatch(u -> Long.valueOf(1).equals(u.position()));
        }

        @Test
        void shouldOpenTheStreamAgainAfterAReconnectEventAndPollAfterReplaced() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> exchange.json(202, FaultServer.waiting(COUPON, 2)));
            server.on("GET", EVENTS, (exchange, call) -> {
                if (call == 1) {
                    exchange.stream()
                            .event("status", "7:w2", FaultServer.waiting(COUPON, 2))
                            .event("reconnect", null, "{\"couponId\":7,\"reason\":\"reconnect\"}");
                } else {
                    exchange.stream().event("replaced", null, "{\"couponId\":7,\"reason\":\"replaced\"}");
                }
            });
            server.on("GET", STATUS, (exchange, call) -> exchange.json(200, FaultServer.issued(COUPON, 12)));

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 12));
            assertThat(server.requests("GET", EVENTS)).hasSize(2);
            assertThat(server.requests("GET", STATUS)).hasSize(1);
        }

        @Test
        void shouldFollowSeveralClaimsOnOneStream() throws Exception {
            for (long id : new long[] {7, 8}) {
                server.on(
                        "POST",
                        "/api/v1/coupons/" + id + "/issue-requests",
                        (exchange, call) -> exchange.json(202, FaultServer.waiting(id, id)));
            }
            server.on(
                    "GET",
                    "/api/v1/me/events",
                    (exchange, call) -> exchange.stream()
                            .event("status", "7:w7", FaultServer.waiting(7, 7))
                            .event("status", "7:i70,8:w8", FaultServer.issued(7, 70))
                            .event("status", "7:i70,8:fSOLD_OUT", FaultServer.failed(8, "SOLD_OUT")));

            Map<Long, ClaimResult> results =
                    client.claimAll(List.of(7L, 8L), updates::add).get(60, TimeUnit.SECONDS);

            assertThat(results)
                    .containsEntry(7L, ClaimResult.issued(7, 70))
                    .containsEntry(8L, ClaimResult.failed(8, "SOLD_OUT"));
            assertThat(server.requests("GET", "/api/v1/me/events"))
                    .singleElement()
                    .satisfies(seen -> assertThat(seen.query()).isEqualTo("coupons=7,8"));
        }
    }

    @Nested
    class Cancelling {

        private final CountDownLatch opened = new CountDownLatch(1);
        private final CountDownLatch closed = new CountDownLatch(1);

        /** The stream tells one place, then only heartbeats until the client goes away. */
        @BeforeEach
        void streamUntilClosed() {
            server.on("POST", ISSUE, (exchange, call) -> exchange.json(202, FaultServer.waiting(COUPON, 2)));
            server.on("GET", EVENTS, (exchange, call) -> {
                FaultServer.Stream stream = exchange.stream().event("status", "7:w2", FaultServer.waiting(COUPON, 2));
                opened.countDown();
                try {
                    while (true) {
                        stream.comment();
                        Thread.sleep(50);
                    }
                } catch (IOException | InterruptedException gone) {
                    closed.countDown();
                }
            });
        }

        @Test
        void shouldCloseTheStreamWhenTheAppCancelsTheClaim() throws Exception {
            CompletableFuture<ClaimResult> claim = client.claim(COUPON, updates::add);
            assertThat(opened.await(60, TimeUnit.SECONDS))
                    .as("the claim follows the stream")
                    .isTrue();
            claim.cancel(false);

            assertThat(closed.await(60, TimeUnit.SECONDS))
                    .as("the stream is closed once the claim is cancelled")
                    .isTrue();
            assertThat(server.requests("GET", EVENTS)).hasSize(1);
        }

        @Test
        void shouldCloseTheStreamOfAResumedClaimWhenTheAppCancelsIt() throws Exception {
            client.close();
            MemoryClaimStore store = new MemoryClaimStore();
            store.put(new StoredClaim(COUPON, "WAITING", null, null, "7:w2", System.currentTimeMillis()));
            client = CouponClient.builder()
                    .baseUrl(server.url())
                    .token(() -> "token-1")
                    .store(store)
                    .build();

            CompletableFuture<Optional<ClaimResult>> resumed = client.resume(COUPON, updates::add);
            assertThat(opened.await(60, TimeUnit.SECONDS))
                    .as("the resumed claim follows the stream")
                    .isTrue();
            resumed.cancel(false);

            assertThat(closed.await(60, TimeUnit.SECONDS))
                    .as("the resumed claim's stream is closed once it is cancelled")
                    .isTrue();
            assertThat(server.requests("POST", ISSUE))
                    .as("a waiting claim is not asked again")
                    .isEmpty();
        }
    }

    @Nested
    class Answers {

        @Test
        void shouldWaitForOpenAtThenAsk() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> {
                if (call == 1) {
                    exchange.problem(409, "NOT_OPEN");
                } else {
                    exchange.json(202, FaultServer.issued(COUPON, 9));
                }
            });
            // the server's clock says when: its Date header (whole seconds) and openAt two seconds after it
            server.on(
                    "GET",
                    "/api/v1/coupons/7",
                    (exchange, call) -> exchange.json(
                            200,
                            "{\"id\":7,\"status\":\"SCHEDULED\",\"openAt\":\""
                                    + Instant.now()
                                            .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                            .plusSeconds(2) + "\"}"));

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 9));
            List<FaultServer.Seen> posts = server.requests("POST", ISSUE);
            // the Date header has whole seconds: up to a second of the wait may be lost to its rounding
            assertThat(millisBetween(server.requests("GET", "/api/v1/coupons/7").get(0), posts.get(1)))
                    .isGreaterThanOrEqualTo(1_000);
            assertThat(updates).anyMatch(u -> u.phase() == ClaimUpdate.Phase.NOT_OPEN_YET);
        }

        @Test
        void shouldFailNotOpenWhenTheEventIsClosedAndSoldOutWhenSoldOut() throws Exception {
            server.on("POST", ISSUE, (exchange, call) -> exchange.problem(409, "NOT_OPEN"));
            server.on(
                    "GET",
                    "/api/v1/coupons/7",
                    (exchange, call) ->
                            exchange.json(200, "{\"id\":7,\"status\":\"CLOSED\",\"openAt\":\"2020-01-01T00:00:00Z\"}"));
            assertThat(claim()).isEqualTo(ClaimResult.failed(COUPON, "NOT_OPEN"));

            server.on("POST", ISSUE, (exchange, call) -> exchange.problem(409, "SOLD_OUT"));
            assertThat(claim()).isEqualTo(ClaimResult.failed(COUPON, "SOLD_OUT"));
        }

        @Test
        void shouldSolveTheProofOfWorkAndSendIt() throws Exception {
            server.on(
                    "GET",
                    "/api/v1/coupons/7/challenge",
                    (exchange, call) -> exchange.json(
                            200,
                            "{\"challenge\":\"v1.7.abc\",\"difficultyBits\":10,\"expiresAt\":\"2099-01-01T00:00:00Z\"}"));
            server.on("POST", ISSUE, (exchange, call) -> {
                String proof = exchange.header("X-Coupon-Proof");
                if (proof == null) {
                    exchange.problem(428, "PROOF_REQUIRED");
                } else if (!proof.startsWith("v1.7.abc:") || zeroBits(proof) < 10) {
                    exchange.problem(403, "PROOF_INVALID");
                } else {
                    exchange.json(202, FaultServer.issued(COUPON, 10));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 10));
            assertThat(updates).anyMatch(u -> u.phase() == ClaimUpdate.Phase.SOLVING_PROOF);
        }

        @Test
        void shouldSolveAnArgon2idChallengeByItsRuleAndParameters() throws Exception {
            server.on(
                    "GET",
                    "/api/v1/coupons/7/challenge",
                    (exchange, call) -> exchange.json(
                            200,
                            "{\"challenge\":\"a1.7.abc\",\"difficultyBits\":3,\"expiresAt\":\"2099-01-01T00:00:00Z\","
                                    + "\"algorithm\":\"argon2id\","
                                    + "\"argon2\":{\"memoryKiB\":256,\"iterations\":2,\"parallelism\":1}}"));
            server.on("POST", ISSUE, (exchange, call) -> {
                String proof = exchange.header("X-Coupon-Proof");
                if (proof == null) {
                    exchange.problem(428, "PROOF_REQUIRED");
                } else if (!proof.startsWith("a1.7.abc:") || argon2ZeroBits(proof, "a1.7.abc", 256, 2) < 3) {
                    exchange.problem(403, "PROOF_INVALID");
                } else {
                    exchange.json(202, FaultServer.issued(COUPON, 10));
                }
            });

            assertThat(claim()).isEqualTo(ClaimResult.issued(COUPON, 10));
        }

        @Test
        void shouldRegisterTheDevice() throws Exception {
            server.on("PUT", "/api/v1/me/devices/fcm:abc", (exchange, call) -> exchange.json(204, ""));
            client.registerDevice("fcm:abc", Platform.ANDROID).get(30, TimeUnit.SECONDS);
            assertThat(server.requests("PUT", "/api/v1/me/devices/fcm:abc")).hasSize(1);
        }
    }

    @Nested
    class Resuming {

        @Test
        void shouldPickAWaitingClaimUpFromTheStoreWithItsLastEventId() throws Exception {
            MemoryClaimStore store = new MemoryClaimStore();
            store.put(new StoredClaim(COUPON, "WAITING", null, null, "7:w5", 1));
            client.close();
            client = CouponClient.builder()
                    .baseUrl(server.url())
                    .token(() -> "t")
                    .store(store)
                    .build();
            streamIssues(77);

            assertThat(client.resume(COUPON, updates::add).get(30, TimeUnit.SECONDS))
                    .contains(ClaimResult.issued(COUPON, 77));
            assertThat(server.requests("POST", ISSUE)).isEmpty();
            assertThat(server.requests("GET", EVENTS).get(0).header("Last-Event-ID"))
                    .isEqualTo("7:w5");
            assertThat(store.get(COUPON))
                    .hasValueSatisfying(claim -> assertThat(claim.state()).isEqualTo("ISSUED"));
            // decided: answered from the store, nothing asked
            assertThat(client.resume(COUPON, updates::add).get(30, TimeUnit.SECONDS))
                    .contains(ClaimResult.issued(COUPON, 77));
            assertThat(server.requests("GET", EVENTS)).hasSize(1);
            assertThat(client.resume(99, updates::add).get(30, TimeUnit.SECONDS))
                    .isEmpty();
        }
    }

    private static int zeroBits(String proof) {
        try {
            return ProofOfWork.zeroBits(
                    MessageDigest.getInstance("SHA-256").digest(proof.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The api's Argon2id rule (docs/http-api.md), written here apart from the client's solver. */
    private static int argon2ZeroBits(String proof, String challenge, int memoryKib, int iterations) {
        byte[] hash = new byte[32];
        org.bouncycastle.crypto.generators.Argon2BytesGenerator argon2 =
                new org.bouncycastle.crypto.generators.Argon2BytesGenerator();
        argon2.init(new org.bouncycastle.crypto.params.Argon2Parameters.Builder(
                        org.bouncycastle.crypto.params.Argon2Parameters.ARGON2_id)
                .withVersion(0x13)
                .withMemoryAsKB(memoryKib)
                .withIterations(iterations)
                .withParallelism(1)
                .withSalt(challenge.getBytes(java.nio.charset.StandardCharsets.UTF_8))
                .build());
        argon2.generateBytes(proof.getBytes(java.nio.charset.StandardCharsets.UTF_8), hash);
        return ProofOfWork.zeroBits(hash);
    }
}
