package com.flashcoupon.pipeline;

import static com.flashcoupon.pipeline.Stack.admin;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.draw.DrawRules;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.loadgen.draw.VerifyDrawCommand;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Events end (docs/architecture.md, "An event's life"): once settled and past the retention, an event's Redis keys are
 * gone, and every member's status, every refusal and the event's figures are answered exactly as before, from MySQL.
 * Then many small events in a row: Redis' keys and memory, and the apps' heaps, come back to where they were.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class EventRetirementTest {

    /**
     * Short, so that the events retire within the test, yet long enough for the test to look at a settled event while
     * it is still live (its figures, its answers) on a busy machine.
     */
    private static final Duration RETENTION = Duration.ofSeconds(8);

    private static Stack stack;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        stack = new Stack(
                Map.of(
                        "coupon.retention.after", RETENTION.toMillis() + "ms",
                        "coupon.retention.check-every", "200ms",
                        "coupon.retention.mark-ttl", "1s",
                        "coupon.drain.tick", "100ms"),
                Map.of());
        http = stack.http();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void shouldAnswerEveryMemberAsBeforeWhenASoldOutEventIsRetired() {
        long id = stack.createCoupon("Retired sold out", 4, 1_000);
        for (int i = 1; i <= 4; i++) {
            ask(id, "so-" + i).expectStatus().isAccepted();
        }
        ask(id, "so-late").expectStatus().isEqualTo(409);
        awaitIssued(id, 4);
        assertThat(stack.redis.hasKey(CouponKeys.meta(id)))
                .as("still live in Redis")
                .isTrue();

        List<String> members = List.of("so-1", "so-2", "so-3", "so-4", "so-late", "so-never");
        Map<String, Object> before = answers(id, members);

        awaitRetired(id);

        assertThat(answers(id, members)).isEqualTo(before);
        assertThat(before)
                .containsEntry("ask so-late", "409 SOLD_OUT")
                .containsEntry("ask so-never", "409 SOLD_OUT")
                .containsEntry("status so-never", "404 REQUEST_NOT_FOUND");
        assertThat(stateKeys(id)).as("nothing came back into Redis").isEmpty();
        assertThat(stack.redis.hasKey(CouponKeys.queue(id))).isFalse();
    }

    @Test
    @Order(2)
    void shouldRefuseAsBeforeAndKeepTheFinalFiguresWhenAClosedEventIsRetired() {
        long id = stack.createCoupon("Retired closed", 10, 1_000);
        for (int i = 1; i <= 3; i++) {
            ask(id, "cl-" + i).expectStatus().isAccepted();
        }
        admin(http.post().uri("/admin/v1/coupons/{id}/close", id))
                .exchange()
                .expectStatus()
                .isOk();
        awaitIssued(id, 3);
        List<String> members = List.of("cl-1", "cl-2", "cl-3", "cl-never");
        Map<String, Object> before = answers(id, members);

        awaitRetired(id);

        assertThat(answers(id, members)).isEqualTo(before);
        assertThat(before).containsEntry("ask cl-1", "409 NOT_OPEN").containsEntry("ask cl-never", "409 NOT_OPEN");
        admin(http.get().uri("/admin/v1/coupons/{id}", id))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.lifecycle")
                .isEqualTo("RETIRED")
                .jsonPath("$.retiredAt")
                .isNotEmpty()
                .jsonPath("$.status")
                .isEqualTo("CLOSED")
                .jsonPath("$.stats.admitted")
                .isEqualTo(3)
                .jsonPath("$.stats.issued")
                .isEqualTo(3)
                .jsonPath("$.stats.published")
                .isEqualTo(3);
        admin(http.patch().uri("/admin/v1/coupons/{id}", id))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 5))
                .exchange()
                .expectStatus()
                .isEqualTo(409)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("RETIRED");
        assertThat(stateKeys(id)).isEmpty();
    }

    /**
     * Bytes per admitted member while an event is live and after it is retired, on an event of 2,000 members that the
     * operator closes once everyone is issued. Printed for the README; asserted only as "nothing left".
     */
    @Test
    @Order(3)
    void shouldFreeEveryByteOfAnEventWhenItIsRetired() {
        int members = 2_000;
        long id = stack.createCoupon("Memory", members + 1, 5_000);
        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), id, Crowd.members("mem", members), 0, 64);
        assertThat(Crowd.countByStatus(answers)).containsEntry(202, (long) members);
        awaitIssued(id, members);

        long live = Footprint.bytes(stack.redis, CouponKeys.state(id));
        admin(http.post().uri("/admin/v1/coupons/{id}/close", id))
                .exchange()
                .expectStatus()
                .isOk();
        awaitRetired(id);
        long retired = Footprint.bytes(stack.redis, CouponKeys.state(id));

        System.out.printf(
                "Redis bytes per admitted member: %.1f while live (%d bytes for %d members), %d after retirement%n",
                (double) live / members, live, members, retired);
        assertThat(live).isGreaterThan(members * 20L);
        assertThat(retired).isZero();
    }

    /**
     * 200 small events through admission, issuance and retirement: every key of every event goes, every member's
     * status still answers, and neither the keys in Redis nor the heap (api and worker share this JVM) grow with the
     * number of past events: the heap after the next 150 events is within a few MB of what it was after the first 50.
     *
     * <p>The heap is the whole test JVM's, which other work shares (the broker, caches filled once, the JIT), so one
     * reading can be off by a one-time allocation. A wave whose growth passes the bound is followed by another of 150
     * (at most {@link #HEAP_WAVES} in all), and the least growth of one wave over the one before is what is asserted:
     * what past events keep grows with every wave, a one-time allocation does not come back.
     */
    @Test
    @Order(4)
    void shouldReturnRedisAndTheHeapToWhereTheyWereWhenManyEventsEnd() {
        long keysBefore = dbSize();

        List<Long> first = runEvents("wave1", 50);
        awaitAllRetired(first);
        awaitKeysBackTo(keysBefore);
        long heapBefore = Footprint.settledHeap();
        long heapAfterFirst = heapBefore;

        List<Long> second = null;
        long growth = Long.MAX_VALUE;
        List<Long> growths = new ArrayList<>();
        for (int wave = 2; wave <= HEAP_WAVES + 1 && growth >= HEAP_GROWTH_BOUND; wave++) {
            List<Long> ids = runEvents("wave" + wave, 150);
            second = second == null ? ids : second;
            awaitAllRetired(ids);
            awaitKeysBackTo(keysBefore);
            long heapAfter = Footprint.settledHeap();
            growths.add(heapAfter - heapBefore);
            growth = Math.min(growth, heapAfter - heapBefore);
            heapBefore = heapAfter;
        }

        assertThat(dbSize()).as("keys in the pipeline's Redis database").isLessThanOrEqualTo(keysBefore);
        for (long id : second.subList(0, 20)) {
            status(id, "wave2-" + id + "-1")
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("ISSUED");
            status(id, "wave2-" + id + "-9").expectStatus().isNotFound();
        }
        System.out.printf(
                "heap after 50 events %d MB; growth over each wave of 150 more past events %s KB%n",
                heapAfterFirst >> 20, growths.stream().map(g -> g >> 10).toList());
        assertThat(growth)
                .as("heap growth over 150 more past events, bytes (the least of the waves' growths %s)", growths)
                .isLessThan(HEAP_GROWTH_BOUND);
    }

    /** What 150 more past events may add to the heap: what a leak of 160 KB per event would pass. */
    private static final long HEAP_GROWTH_BOUND = 24L << 20;

    /** Waves of 150 events measured at most: one, and more only while each grew the heap past the bound. */
    private static final int HEAP_WAVES = 3;

    /** The Redis database back to {@code keys} keys or fewer: a retired event's keys are gone, others' expire. */
    private static void awaitKeysBackTo(long keys) {
        await("the pipeline's Redis database back to " + keys + " keys or fewer, the events retired")
                .atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> dbSize() <= keys);
    }

    /**
     * A RANDOMIZED_START event (docs/architecture.md, "Queueing modes"): 20 members ask within its window for 5
     * coupons; each hears 202 with the draw's time and no place (nobody has one before the draw); when the window
     * ends the draw places 5 of them, in the order the published seed gives, and they are issued in that order; the 15
     * others are told SOLD_OUT (status, live stream, a repeated request); a member asking after the draw is refused;
     * every entrant's place is in MySQL; and once retired, MySQL answers all of them exactly as before.
     */
    @Test
    @Order(5)
    void shouldPlaceTheWindowsMembersByTheDrawAndAnswerAsBeforeWhenRetired() {
        Instant openAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<?, ?> created = createFairStart("Fair start", openAt, 3600);
        long id = ((Number) created.get("id")).longValue();
        Instant drawAt = openAt.plusSeconds(3600);
        assertThat(created.get("queueing")).isEqualTo("RANDOMIZED_START");
        assertThat(created.get("drawAt")).isEqualTo(drawAt.toString());

        List<String> members = Crowd.members("fair", 20);
        for (String member : members) {
            Map<?, ?> body = ask(id, member)
                    .expectStatus()
                    .isAccepted()
                    .expectBody(Map.class)
                    .returnResult()
                    .getResponseBody();
            assertThat(body.get("status")).isEqualTo("WAITING");
            assertThat(body.get("position")).isNull();
            assertThat(body.get("drawAt")).isEqualTo(drawAt.toString());
        }
        ask(id, members.get(3))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.drawAt")
                .isEqualTo(drawAt.toString());
        assertThat(stack.redis.opsForZSet().zCard(CouponKeys.queue(id)))
                .as("nobody has a place before the draw")
                .isZero();
        List<Map<String, Object>> stream = Stack.watch(stack.apiUrl(), id, members.get(7));
        await().atMost(Duration.ofSeconds(30)).until(() -> !stream.isEmpty());

        Stack.endWindow(stack.jdbc, http, id, 1_000);
        awaitIssued(id, 5);
        List<String> drawOrder = placedByTheSeed(id, members, 5);
        List<String> issuedInOrder = stack.jdbc
                .sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ? ORDER BY request_seq")
                .param(id)
                .query(String.class)
                .list();
        assertThat(issuedInOrder)
                .as("the places the published seed gives, in their order")
                .isEqualTo(drawOrder);
        String leftOut = members.stream()
                .filter(member -> !drawOrder.contains(member))
                .findFirst()
                .orElseThrow();
        status(id, leftOut)
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("FAILED")
                .jsonPath("$.failureReason")
                .isEqualTo("SOLD_OUT");
        ask(id, "fair-late").expectStatus().isEqualTo(409);
        await().atMost(Duration.ofSeconds(30))
                .until(() ->
                        !stream.isEmpty() && !"WAITING".equals(stream.getLast().get("status")));
        assertThat(stream.getFirst().get("drawAt")).isEqualTo(drawAt.toString());
        assertThat(stream.getLast().get("status")).isEqualTo(drawOrder.contains(members.get(7)) ? "ISSUED" : "FAILED");
        assertThat(stack.jdbc
                        .sql("SELECT COUNT(*), COUNT(place) FROM coupon_draw_entrant WHERE coupon_id = ?")
                        .param(id)
                        .query((rs, row) -> List.of(rs.getLong(1), rs.getLong(2)))
                        .single())
                .as("every entrant recorded in MySQL with the draw, 5 of them placed")
                .containsExactly(20L, 5L);

        List<String> asked = new ArrayList<>(List.of(drawOrder.get(0), drawOrder.get(4), leftOut, "fair-late"));
        Map<String, Object> before = answers(id, asked);
        awaitRetired(id);

        assertThat(answers(id, asked)).isEqualTo(before);
        assertThat(before)
                .containsEntry("ask fair-late", "409 SOLD_OUT")
                .containsEntry("status fair-late", "404 REQUEST_NOT_FOUND");
        assertThat(String.valueOf(before.get("ask " + leftOut))).contains("FAILED", "SOLD_OUT");
    }

    /**
     * Closed by an operator within its window, a RANDOMIZED_START event has nobody in its queue yet, but its draw's
     * members still wait for their places: it settles only after the draw, and they are issued.
     */
    @Test
    @Order(6)
    void shouldDrawAndIssueAFairStartClosedWithinItsWindowBeforeItSettles() {
        Instant openAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<?, ?> created = createFairStart("Fair start closed early", openAt, 3600);
        long id = ((Number) created.get("id")).longValue();
        List<String> members = Crowd.members("closed-early", 3);
        members.forEach(member -> ask(id, member).expectStatus().isAccepted());
        admin(http.post().uri("/admin/v1/coupons/{id}/close", id))
                .exchange()
                .expectStatus()
                .isOk();
        assertThat(stack.jdbc
                        .sql("SELECT settled_at IS NULL FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Boolean.class)
                        .single())
                .as("closed, but the draw is still to be made: not settled")
                .isTrue();

        Stack.endWindow(stack.jdbc, http, id, 1_000);
        awaitIssued(id, 3);
        awaitRetired(id);
        for (String member : members) {
            status(id, member)
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("ISSUED");
        }
    }

    /**
     * {@code bin/verify-draw} (loadgen's {@code verify-draw}) on a real draw: it recomputes every ticket and place from
     * the published seed and passes; then one thing at a time is changed in MySQL, what the api publishes from (a
     * winner swapped with a member left out, a wallet coupon handed to a member left out, one byte of the seed), and
     * it fails naming the difference.
     */
    @Test
    @Order(7)
    void shouldVerifyARealDrawAndFailOnATamperedOne() {
        Instant openAt = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        long id = ((Number) createFairStart("Fair start checked", openAt, 3600).get("id")).longValue();
        List<String> members = Crowd.members("checked", 12);
        members.forEach(member -> ask(id, member).expectStatus().isAccepted());
        Stack.endWindow(stack.jdbc, http, id, 1_000);
        awaitIssued(id, 5);
        List<String> placed = placedByTheSeed(id, members, 5);
        String winner = placed.getFirst();
        String loser =
                members.stream().filter(m -> !placed.contains(m)).findFirst().orElseThrow();

        assertThat(verifyDraw(id)).startsWith("0 ").contains("OK: the seed matches its commitment");
        String commitment = (String) ((Map<?, ?>) admin(http.get().uri("/admin/v1/coupons/{id}", id))
                        .exchange()
                        .expectBody(Map.class)
                        .returnResult()
                        .getResponseBody()
                        .get("draw"))
                .get("commitment");
        assertThat(verifyDraw("--public", stack.apiUrl(), Long.toString(id), "--commitment", commitment))
                .as("from the public record alone, no token")
                .startsWith("0 ")
                .contains("OK: the seed matches its commitment (the one saved earlier)");

        String swap = "UPDATE coupon_draw_entrant SET place = CASE WHEN member_id = ? THEN NULL ELSE 1 END"
                + " WHERE coupon_id = ? AND member_id IN (?, ?)";
        String unswap = "UPDATE coupon_draw_entrant SET place = CASE WHEN member_id = ? THEN 1 ELSE NULL END"
                + " WHERE coupon_id = ? AND member_id IN (?, ?)";
        assertThat(verifyTampered(
                        id, swap, List.of(winner, id, winner, loser), unswap, List.of(winner, id, winner, loser)))
                .startsWith("1 ")
                .contains("DIFFERENT: ")
                .contains(winner + " should be place 1, the export says left out")
                .contains(loser + " should be left out, the export says place 1");
        assertThat(verifyTampered(
                        id,
                        swap,
                        List.of(winner, id, winner, loser),
                        unswap,
                        List.of(winner, id, winner, loser),
                        "--public",
                        stack.apiUrl(),
                        Long.toString(id)))
                .as("the public list tampered the same way")
                .startsWith("1 ")
                .contains("should be place 1, the export says left out");

        String handOver = "UPDATE coupon_wallet SET member_id = ? WHERE coupon_id = ? AND member_id = ?";
        assertThat(verifyTampered(id, handOver, List.of(loser, id, winner), handOver, List.of(winner, id, loser)))
                .startsWith("1 ")
                .contains(loser + " was left out by the draw but holds wallet coupon");

        byte[] seed = stack.jdbc
                .sql("SELECT seed FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .single();
        byte[] flipped = seed.clone();
        flipped[0] ^= 1;
        String setSeed = "UPDATE coupon_draw SET seed = ? WHERE coupon_id = ?";
        assertThat(verifyTampered(id, setSeed, List.of(flipped, id), setSeed, List.of(seed, id)))
                .startsWith("1 ")
                .contains("not the commitment published at creation");

        assertThat(verifyDraw(id)).as("as it was again").startsWith("0 ");
    }

    /** Changes MySQL, runs the verification, then changes MySQL back; what the verification said. */
    private static String verifyTampered(
            long id, String change, List<Object> changeParams, String undo, List<Object> undoParams, String... args) {
        stack.jdbc.sql(change).params(changeParams).update();
        try {
            return args.length == 0 ? verifyDraw(id) : verifyDraw(args);
        } finally {
            stack.jdbc.sql(undo).params(undoParams).update();
        }
    }

    /** loadgen's verify-draw against the stack: its exit status, a space, then what it printed. */
    private static String verifyDraw(long id) {
        return verifyDraw(Long.toString(id));
    }

    /** loadgen's verify-draw with these arguments against the stack: its exit status, a space, what it printed. */
    private static String verifyDraw(String... args) {
        var out = new java.io.ByteArrayOutputStream();
        var err = new java.io.ByteArrayOutputStream();
        Map<String, String> env = Map.of(
                "COUPON_API_URL", stack.apiUrl(),
                "COUPON_JWT_SECRET", Stack.JWT_SECRET,
                "COUPON_DB_URL", stack.database.url(),
                "COUPON_DB_USER", stack.database.user(),
                "COUPON_DB_PASSWORD", stack.database.password());
        int status;
        try {
            status = new VerifyDrawCommand(
                            new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                            new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8))
                    .run(List.of(args), env);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        return status + " " + out.toString(java.nio.charset.StandardCharsets.UTF_8)
                + err.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** The members the draw placed, in place order, recomputed from the seed the admin view publishes. */
    private static List<String> placedByTheSeed(long id, List<String> members, int places) {
        Map<?, ?> draw = (Map<?, ?>) admin(http.get().uri("/admin/v1/coupons/{id}", id))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody()
                .get("draw");
        assertThat(draw.get("state")).isEqualTo("MADE");
        byte[] seed = DrawRules.unhex((String) draw.get("seed"));
        // function 2 (events created now): the draw is over the members' pseudonyms, under the event's key
        byte[] key = stack.jdbc
                .sql("SELECT pseudonym_key FROM coupon_draw WHERE coupon_id = ?")
                .param(id)
                .query(byte[].class)
                .optional()
                .orElse(null);
        DrawRules.Leaves leaves = DrawRules.leaves(
                key == null ? 1 : 2, key, members.stream().sorted().toList());
        return DrawRules.draw(seed, leaves.inOrder(), places).placed().stream()
                .map(leaves.member()::get)
                .toList();
    }

    /** Creates {@code count} events of 3 coupons, asks 3 members each, waits until all are issued; returns the ids. */
    private static List<Long> runEvents(String wave, int count) {
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long id = stack.createCoupon(wave, 3, 1_000);
            ids.add(id);
            for (int m = 1; m <= 3; m++) {
                ask(id, wave + "-" + id + "-" + m).expectStatus().isAccepted();
            }
        }
        // wallets only: with a short retention the first events may be retired (their Redis results gone) by now; one
        // count over the wave (a wait per event cost at least Awaitility's 100 ms poll delay each, hundreds of times)
        await().atMost(Duration.ofSeconds(60))
                .until(() -> stack.jdbc
                                .sql("SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id BETWEEN ? AND ?")
                                .params(ids.getFirst(), ids.getLast())
                                .query(Long.class)
                                .single()
                        == 3L * count);
        for (long id : ids) {
            assertThat(stack.walletCount(id)).as("wallets of coupon %d", id).isEqualTo(3);
        }
        return ids;
    }

    private static void awaitAllRetired(List<Long> ids) {
        await().atMost(RETENTION.plusSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> stack.jdbc
                                .sql("SELECT COUNT(*) FROM coupon WHERE id BETWEEN ? AND ? AND keys_removed_at IS NULL")
                                .params(ids.getFirst(), ids.getLast())
                                .query(Long.class)
                                .single()
                        == 0);
        for (long id : ids) {
            assertThat(stateKeys(id)).as("keys of coupon %d", id).isEmpty();
        }
    }

    /** Every wallet written in MySQL and every result recorded in Redis (the worker writes Redis after MySQL). */
    private static void awaitIssued(long id, int count) {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> stack.walletCount(id) == count
                        && String.valueOf(count)
                                .equals(stack.redis.opsForValue().get(CouponKeys.done(id))));
    }

    private static void awaitRetired(long id) {
        await().atMost(RETENTION.plusSeconds(30))
                .until(() -> stateKeys(id).isEmpty()
                        && stack.jdbc
                                        .sql("SELECT COUNT(*) FROM coupon WHERE id = ? AND keys_removed_at IS NOT NULL")
                                        .param(id)
                                        .query(Long.class)
                                        .single()
                                == 1);
    }

    /** What the api answers about the event: statuses and asks of these members, and the event itself. */
    private static Map<String, Object> answers(long id, List<String> members) {
        Map<String, Object> answers = new LinkedHashMap<>();
        for (String member : members) {
            answers.put("status " + member, summary(status(id, member).returnResult(Map.class)));
            answers.put("ask " + member, summary(ask(id, member).returnResult(Map.class)));
        }
        answers.put(
                "coupon",
                summary(http.get()
                        .uri("/api/v1/coupons/{id}", id)
                        .header("Authorization", "Bearer " + Stack.token("reader", List.of()))
                        .exchange()
                        .returnResult(Map.class)));
        return answers;
    }

    /** A 2xx answer whole; a problem as its status and code (its detail and request id differ from call to call). */
    private static Object summary(org.springframework.test.web.reactive.server.FluxExchangeResult<Map> result) {
        Map<?, ?> body = result.getResponseBody().blockFirst(Duration.ofSeconds(10));
        int status = result.getStatus().value();
        return status < 300 ? status + " " + body : status + " " + (body == null ? null : body.get("code"));
    }

    private static WebTestClient.ResponseSpec ask(long id, String member) {
        return http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", id)
                .header("Authorization", "Bearer " + Stack.token(member, List.of()))
                .exchange();
    }

    private static WebTestClient.ResponseSpec status(long id, String member) {
        return http.get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", id)
                .header("Authorization", "Bearer " + Stack.token(member, List.of()))
                .exchange();
    }

    private static List<String> stateKeys(long id) {
        return Footprint.presentKeys(stack.redis, CouponKeys.state(id));
    }

    private static long dbSize() {
        return Footprint.keys(stack.redis);
    }

    /** A RANDOMIZED_START event of 5 coupons at 1,000/s whose window of {@code windowSeconds} starts at {@code openAt}. */
    private static Map<?, ?> createFairStart(String name, Instant openAt, int windowSeconds) {
        return Stack.createCoupon(
                http,
                Map.of(
                        "name",
                        name,
                        "totalQuantity",
                        5,
                        "openAt",
                        openAt.toString(),
                        "issueRatePerSecond",
                        1_000,
                        "queueing",
                        "RANDOMIZED_START",
                        "queueingWindowSeconds",
                        windowSeconds));
    }
}
