package com.flashcoupon.clients;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.client.ClaimResult;
import com.flashcoupon.client.ClaimUpdate;
import com.flashcoupon.client.CouponClient;
import com.flashcoupon.client.MemoryClaimStore;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Both client libraries against the real api and worker (one stack for the whole class: it takes a while to start on
 * two cores): members of a crowd admitted and issued or told sold out, a proof of work, a fair start's draw, an event
 * not open yet, a claim resumed by a new client after the app was killed, a stream cut and resumed with
 * Last-Event-ID, several coupons on one stream; then the TypeScript client's own tests (unit and fault tests, after
 * {@code npm ci}), its tests against this api, and the built bundle in headless Chromium.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ClientsAgainstTheApiTest {

    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private ClientStack stack;
    private OkHttpClient http;
    private ScheduledExecutorService timer;

    @BeforeAll
    void start() {
        stack = new ClientStack();
        Dispatcher dispatcher = new Dispatcher();
        dispatcher.setMaxRequests(1024);
        dispatcher.setMaxRequestsPerHost(1024);
        http = new OkHttpClient.Builder()
                .dispatcher(dispatcher)
                .connectionPool(new ConnectionPool(256, 1, TimeUnit.MINUTES))
                .readTimeout(Duration.ofSeconds(30))
                .build();
        timer = Executors.newScheduledThreadPool(2);
    }

    @AfterAll
    void stop() {
        timer.shutdownNow();
        http.dispatcher().executorService().shutdownNow();
        stack.close();
    }

    private CouponClient client(String member) {
        return client(member, stack.url(), new MemoryClaimStore());
    }

    private CouponClient client(String member, String url, MemoryClaimStore store) {
        return CouponClient.builder()
                .baseUrl(url)
                .token(() -> ClientStack.token(member, List.of()))
                .httpClient(http)
                .timer(timer)
                .store(store)
                .backoff(Duration.ofMillis(200), Duration.ofSeconds(3))
                .build();
    }

    private static Instant inSeconds(long seconds) {
        return Instant.now().plusSeconds(seconds).truncatedTo(ChronoUnit.SECONDS);
    }

    @Nested
    class JavaClient {

        @Test
        void shouldIssueToTheFirstMembersOfACrowdAndTellTheRestSoldOut() {
            long coupon = stack.createCoupon(Map.of("totalQuantity", 60, "issueRatePerSecond", 200));
            List<String> members = new ArrayList<>();
            List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
            for (int i = 0; i < 150; i++) {
                String member = "crowd-" + i;
                members.add(member);
                claims.add(client(member).claim(coupon, update -> {}));
            }

            List<ClaimResult> results = claims.stream()
                    .map(claim -> claim.orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS)
                            .join())
                    .toList();

            assertThat(results).filteredOn(ClaimResult::isIssued).hasSize(60);
            assertThat(results)
                    .filteredOn(result -> !result.isIssued())
                    .hasSize(90)
                    .allSatisfy(result -> assertThat(result.reason()).isEqualTo("SOLD_OUT"));
            assertThat(stack.wallets(coupon)).isEqualTo(60);
            for (int i = 0; i < results.size(); i++) {
                if (results.get(i).isIssued()) {
                    assertThat(results.get(i).walletCouponId()).isEqualTo(stack.walletOf(coupon, members.get(i)));
                }
            }
        }

        @Test
        void shouldSolveTheProofOfWorkTheEventAsksFor() {
            long coupon =
                    stack.createCoupon(Map.of("humanCheck", "{\"type\":\"PROOF_OF_WORK\",\"difficultyBits\":12}"));
            List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();

            ClaimResult result = client("prover").claim(coupon, updates::add).join();

            assertThat(result.isIssued()).isTrue();
            assertThat(result.walletCouponId()).isEqualTo(stack.walletOf(coupon, "prover"));
            assertThat(updates).anyMatch(update -> update.phase() == ClaimUpdate.Phase.SOLVING_PROOF);
        }

        @Test
        void shouldSolveAMemoryHardProofOfWorkWhenTheEventAsksArgon2id() {
            long coupon = stack.createCoupon(Map.of("humanCheck", "{\"type\":\"ARGON2ID\",\"difficultyBits\":4}"));
            List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();

            ClaimResult result =
                    client("argon-prover").claim(coupon, updates::add).join();

            // the api refuses a SHA-256 proof for such an event (ProofOfWorkTest): issued means the client solved the
            // Argon2id puzzle under the parameters the challenge named
            assertThat(result.isIssued()).isTrue();
            assertThat(result.walletCouponId()).isEqualTo(stack.walletOf(coupon, "argon-prover"));
            assertThat(updates).anyMatch(update -> update.phase() == ClaimUpdate.Phase.SOLVING_PROOF);
        }

        @Test
        void shouldFollowAFairStartsDrawToItsOutcome() {
            // the window opens a few seconds ahead, so that the members (who wait for it) all ask within it, however
            // slowly this machine creates the event
            Instant openAt = inSeconds(4);
            long coupon = stack.createCoupon(Map.of(
                    "totalQuantity", 2, "openAt", openAt, "queueing", "RANDOMIZED_START", "queueingWindowSeconds", 8));
            List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();
            List<CompletableFuture<ClaimResult>> claims = new ArrayList<>();
            Instant asked = Instant.now();
            for (int i = 0; i < 5; i++) {
                claims.add(client("drawn-" + i).claim(coupon, updates::add));
            }

            List<ClaimResult> results = claims.stream()
                    .map(claim -> claim.orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS)
                            .join())
                    .toList();

            assertThat(results).filteredOn(ClaimResult::isIssued).hasSize(2);
            assertThat(results)
                    .filteredOn(result -> !result.isIssued())
                    .extracting(ClaimResult::reason)
                    .containsOnly("SOLD_OUT");
            assertThat(stack.wallets(coupon)).isEqualTo(2);
            if (asked.isBefore(openAt)) {
                // they waited for openAt, then entered the draw and heard its odds
                assertThat(updates).anyMatch(update -> update.phase() == ClaimUpdate.Phase.NOT_OPEN_YET);
                assertThat(updates)
                        .anyMatch(
                                update -> update.draw() != null && update.draw().entrants() >= 1);
            }
        }

        @Test
        void shouldWaitForAnEventNotOpenYet() {
            Instant openAt = inSeconds(6);
            long coupon = stack.createCoupon(Map.of("openAt", openAt));
            List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();
            Instant asked = Instant.now();

            ClaimResult result = client("early").claim(coupon, updates::add).join();

            assertThat(result.isIssued()).isTrue();
            if (asked.isBefore(openAt.minusSeconds(1))) {
                assertThat(updates).anyMatch(update -> update.phase() == ClaimUpdate.Phase.NOT_OPEN_YET);
            }
        }

        @Test
        void shouldResumeAClaimInANewClientAfterTheAppWasKilled() throws IOException {
            long coupon = stack.createCoupon(Map.of("issueRatePerSecond", 1));
            for (int i = 0; i < 3; i++) {
                client("ahead-" + i).claim(coupon, update -> {});
            }
            MemoryClaimStore store = new MemoryClaimStore();
            try (CutProxy proxy = new CutProxy(port())) {
                CouponClient first = client("restarted", proxy.url(), store);
                List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();
                CompletableFuture<ClaimResult> killed = first.claim(coupon, updates::add);
                await().atMost(PATIENCE).until(() -> updates.stream().anyMatch(u -> u.position() != null));
                // the app is killed: its claim and its stream go with it
                killed.cancel(true);
                first.close();
                proxy.cutAll();
                assertThat(store.get(coupon))
                        .hasValueSatisfying(claim -> assertThat(claim.state()).isEqualTo("WAITING"));
                int posts = proxy.heads("POST ").size();

                ClaimResult resumed = client("restarted", proxy.url(), store)
                        .resume(coupon, update -> {})
                        .orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS)
                        .join()
                        .orElseThrow();

                assertThat(resumed.isIssued()).isTrue();
                assertThat(resumed.walletCouponId()).isEqualTo(stack.walletOf(coupon, "restarted"));
                assertThat(proxy.heads("POST "))
                        .as("resuming asks for no new place")
                        .hasSize(posts);
            }
        }

        @Test
        void shouldOpenACutStreamAgainWithLastEventIdAndStillGetTheOutcome() throws IOException {
            long coupon = stack.createCoupon(Map.of("issueRatePerSecond", 1));
            for (int i = 0; i < 3; i++) {
                client("before-cut-" + i).claim(coupon, update -> {});
            }
            try (CutProxy proxy = new CutProxy(port())) {
                List<ClaimUpdate> updates = new CopyOnWriteArrayList<>();
                CompletableFuture<ClaimResult> claim =
                        client("cut", proxy.url(), new MemoryClaimStore()).claim(coupon, updates::add);
                await().atMost(PATIENCE)
                        .until(() -> !proxy.heads("GET /api/v1/coupons/" + coupon + "/issue-requests/me/events")
                                .isEmpty());
                await().atMost(PATIENCE).until(() -> updates.size() >= 2);
                proxy.cutAll();

                ClaimResult result =
                        claim.orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS).join();

                assertThat(result.isIssued()).isTrue();
                List<String> streams = proxy.heads("GET /api/v1/coupons/" + coupon + "/issue-requests/me/events");
                assertThat(streams).hasSizeGreaterThanOrEqualTo(2);
                assertThat(streams.get(1)).containsIgnoringCase("Last-Event-ID: " + coupon + ":");
            }
        }

        @Test
        void shouldClaimSeveralCouponsOverOneStream() throws IOException {
            long first = stack.createCoupon(Map.of("issueRatePerSecond", 2));
            long second = stack.createCoupon(Map.of("issueRatePerSecond", 2, "totalQuantity", 1));
            long third = stack.createCoupon(Map.of("issueRatePerSecond", 2));
            client("taker").claim(second, update -> {}).join();
            try (CutProxy proxy = new CutProxy(port())) {
                Map<Long, ClaimResult> results = client("several", proxy.url(), new MemoryClaimStore())
                        .claimAll(List.of(first, second, third), update -> {})
                        .orTimeout(PATIENCE.toSeconds(), TimeUnit.SECONDS)
                        .join();

                assertThat(results.get(first).isIssued()).isTrue();
                assertThat(results.get(second)).isEqualTo(ClaimResult.failed(second, "SOLD_OUT"));
                assertThat(results.get(third).isIssued()).isTrue();
                assertThat(proxy.heads("GET /api/v1/me/events?coupons=")).hasSizeGreaterThanOrEqualTo(1);
                assertThat(proxy.heads("GET /api/v1/coupons/"))
                        .as("no stream of its own per coupon")
                        .isEmpty();
            }
        }
    }

    @Nested
    class WireCost {

        /**
         * What following a claim costs on the wire, as the documentation's estimate uses it: the bytes of one status
         * read, of opening a stream (its request, headers and first event), and of one heartbeat, each measured through
         * a proxy. Printed for docs/clients.md; asserted only where the order cannot depend on the machine.
         */
        @Test
        void shouldMeasureTheBytesOfAStatusReadAStreamAndAHeartbeat() throws Exception {
            long coupon = stack.createCoupon(Map.of("issueRatePerSecond", 1, "totalQuantity", 100));
            for (int i = 0; i < 50; i++) {
                client("wire-ahead-" + i).claim(coupon, update -> {});
            }
            String member = "wire-member";
            List<ClaimUpdate> admitted = new CopyOnWriteArrayList<>();
            client(member).claim(coupon, admitted::add);
            await().atMost(PATIENCE).until(() -> admitted.stream().anyMatch(update -> update.position() != null));
            String token = ClientStack.token(member, List.of());
            try (CutProxy proxy = new CutProxy(port())) {
                OkHttpClient plain = new OkHttpClient.Builder()
                        .readTimeout(Duration.ofSeconds(30))
                        .build();
                var read = new okhttp3.Request.Builder()
                        .url(proxy.url() + "/api/v1/coupons/" + coupon + "/issue-requests/me")
                        .header("Authorization", "Bearer " + token)
                        .build();
                try (var answer = plain.newCall(read).execute()) {
                    assertThat(answer.code()).isEqualTo(200);
                    answer.body().string();
                }
                long readUp = proxy.sent.get();
                long readDown = proxy.received.get();

                var events = new okhttp3.Request.Builder()
                        .url(proxy.url() + "/api/v1/coupons/" + coupon + "/issue-requests/me/events")
                        .header("Authorization", "Bearer " + token)
                        .header("Accept", "text/event-stream")
                        .build();
                List<String> lines = new CopyOnWriteArrayList<>();
                long openedDown;
                long heartbeatsDown;
                int heartbeats;
                try (var answer = plain.newCall(events).execute()) {
                    var source = answer.body().source();
                    // the first event: its status
                    while (!source.readUtf8LineStrict().isEmpty()) {
                        // event, id, data lines
                    }
                    openedDown = proxy.received.get() - readDown;
                    long before = proxy.received.get();
                    heartbeats = 0;
                    while (heartbeats < 3) {
                        String line = source.readUtf8LineStrict();
                        lines.add(line);
                        if (line.startsWith(":")) {
                            heartbeats++;
                        }
                    }
                    heartbeatsDown = proxy.received.get() - before;
                }
                long streamUp = proxy.sent.get() - readUp;
                System.out.printf(
                        "WIRE status read: %d bytes up, %d down; stream opened: %d up, %d down (headers and first event);"
                                + " %d heartbeats and position events: %d bytes down (%s)%n",
                        readUp, readDown, streamUp, openedDown, heartbeats, heartbeatsDown, lines);
                assertThat(readUp + readDown).isGreaterThan(200);
                // a stream open for three heartbeats, with the position events meanwhile, costs less than ten reads
                assertThat(streamUp + openedDown + heartbeatsDown).isLessThan(10 * (readUp + readDown));
                plain.dispatcher().executorService().shutdown();
            }
        }
    }

    private int port() {
        return Integer.parseInt(stack.url().substring(stack.url().lastIndexOf(':') + 1));
    }

    @Nested
    class TypeScriptClient {

        @Test
        void shouldPassItsUnitAndFaultTests() throws Exception {
            npm("run", "test:unit"); // npm test builds first: npm() has built once already
        }

        @Test
        void shouldClaimAgainstTheRealApi() throws Exception {
            npm("run", "test:api");
        }

        @Test
        void shouldClaimFromABrowserPageUsingTheBuiltBundle() throws Exception {
            npm("run", "test:browser");
        }
    }

    private static boolean installed;

    /** Runs npm in clients/typescript (after npm ci, once) with the api's address; fails on a non-zero exit. */
    private void npm(String... arguments) throws Exception {
        File dir = new File(System.getProperty("clients.typescript.dir", "../typescript"));
        if (!installed) {
            run(dir, List.of("npm", "ci", "--no-audit", "--no-fund"));
            run(dir, List.of("npm", "run", "build"));
            installed = true;
        }
        List<String> command = new ArrayList<>(List.of("npm"));
        command.addAll(List.of(arguments));
        run(dir, command);
    }

    private void run(File dir, List<String> command) throws Exception {
        Path log = Files.createTempFile("npm", ".log");
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(dir)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("FC_API_URL", stack.url());
        builder.environment().put("FC_JWT_SECRET", ClientStack.JWT_SECRET);
        Process process = builder.start();
        boolean done = process.waitFor(5, TimeUnit.MINUTES);
        String output = Files.readString(log, StandardCharsets.UTF_8);
        System.out.println("---- " + String.join(" ", command) + "\n" + output);
        if (!done) {
            process.destroyForcibly();
        }
        assertThat(done).as("%s finished within 5 minutes", command).isTrue();
        assertThat(process.exitValue())
                .as("%s exit status; output:%n%s", command, output)
                .isZero();
    }
}
