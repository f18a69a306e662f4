package com.flashcoupon.api.redemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.TopicRecords;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.contract.WalletChanged;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The redemption API (docs/http-api.md, Internal endpoints) against real MySQL and an in-process broker: every step's
 * wallet state is read back from MySQL and its change event from {@code coupon.wallet.changed}.
 */
@ApiTest
class RedemptionApiTest extends ApiTestBase {

    private static final String REDEEMER = redeemer("order-service");

    /** Another order service: a token of its own, with the same role. */
    private static final String OTHER = redeemer("other-service");

    private static String redeemer(String subject) {
        return "Bearer "
                + TestEnvironment.token(
                        subject, List.of("coupon-redeemer"), Instant.now().plusSeconds(3600));
    }

    @org.springframework.beans.factory.annotation.Autowired
    private io.micrometer.core.instrument.MeterRegistry meters;

    @Value("${spring.kafka.bootstrap-servers}")
    private String bootstrapServers;

    private TopicRecords<WalletChanged> changes;

    @BeforeEach
    void subscribe() {
        changes = new TopicRecords<>(bootstrapServers, Topics.WALLET_CHANGED, WalletChanged.class);
    }

    @AfterEach
    void close() {
        changes.close();
    }

    /** The reasons of the events seen so far for this wallet coupon, in change order (one member: one partition). */
    private List<String> events(long walletId) {
        // at least once: an event seen twice (the same changeId) counts once
        var once = new TreeMap<Long, String>();
        changes.matching(change -> change.walletCouponId() == walletId)
                .forEach(change -> once.put(
                        change.changeId(), change.reason() + ":" + change.fromState() + ">" + change.toState()));
        return List.copyOf(once.values());
    }

    private void awaitEvents(long walletId, String... expected) {
        await().atMost(Duration.ofSeconds(20)).until(() -> events(walletId).size() >= expected.length);
        assertThat(events(walletId)).containsExactly(expected);
    }

    private long coupon(Map<String, Object> benefit) {
        var body = new HashMap<String, Object>(Map.of(
                "name",
                "Benefit coupon",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().minusSeconds(60).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                10));
        if (benefit != null) {
            body.put("benefit", benefit);
        }
        return createCoupon(body);
    }

    private long wallet(long couponId, String memberId) {
        jdbc.sql("INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at)"
                        + " VALUES (?, ?, 1, NOW(3), NOW(3) + INTERVAL 30 DAY)")
                .params(couponId, memberId)
                .update();
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, memberId)
                .query(Long.class)
                .single();
    }

    private String state(long walletId) {
        return jdbc.sql("SELECT state FROM coupon_wallet WHERE id = ?")
                .param(walletId)
                .query(String.class)
                .single();
    }

    private WebTestClient.ResponseSpec reserve(String key, long walletId, String member, String order, long amount) {
        return reserve(REDEEMER, key, walletId, member, order, amount);
    }

    private WebTestClient.ResponseSpec reserve(
            String caller, String key, long walletId, String member, String order, long amount) {
        return client().post()
                .uri("/internal/v1/redemptions")
                .header("Authorization", caller)
                .header("Idempotency-Key", key)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(
                        Map.of("walletCouponId", walletId, "memberId", member, "orderId", order, "orderAmount", amount))
                .exchange();
    }

    private WebTestClient.ResponseSpec call(String key, long redemptionId, String action) {
        return call(REDEEMER, key, redemptionId, action);
    }

    private WebTestClient.ResponseSpec call(String caller, String key, long redemptionId, String action) {
        return client().post()
                .uri("/internal/v1/redemptions/{id}/" + action, redemptionId)
                .header("Authorization", caller)
                .header("Idempotency-Key", key)
                .exchange();
    }

    private long redemptionId(WebTestClient.ResponseSpec response) {
        return ((Number) response.expectBody(Map.class)
                        .returnResult()
                        .getResponseBody()
                        .get("redemptionId"))
                .longValue();
    }

    @Test
    void shouldWalkTheStateMachineWithEveryStepInMysqlAndOnKafka() {
        long couponId = coupon(Map.of("type", "PERCENT", "percent", 10, "maxDiscount", 5000, "minOrderAmount", 20000));
        long walletId = wallet(couponId, "rd-1");

        // reserve: 10% of 30,000
        long first = redemptionId(reserve("k-1", walletId, "rd-1", "rdo-1", 30000)
                .expectStatus()
                .isCreated()
                .expectHeader()
                .valueMatches("Location", "/internal/v1/redemptions/\\d+"));
        assertThat(state(walletId)).isEqualTo("RESERVED");
        // COUPON_RESERVATION_TTL: 15 minutes by default
        assertThat(jdbc.sql("SELECT TIMESTAMPDIFF(SECOND, reserved_at, expires_at) FROM coupon_redemption WHERE id = ?")
                        .param(first)
                        .query(Long.class)
                        .single())
                .isEqualTo(900);
        client().get()
                .uri("/internal/v1/redemptions/{id}", first)
                .header("Authorization", REDEEMER)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.discount")
                .isEqualTo(3000)
                .jsonPath("$.state")
                .isEqualTo("RESERVED")
                .jsonPath("$.expiresAt")
                .exists();

        // the same key and body: the same answer; the same key with another body: 422
        assertThat(redemptionId(reserve("k-1", walletId, "rd-1", "rdo-1", 30000)
                        .expectStatus()
                        .isCreated()))
                .isEqualTo(first);
        expectProblem(reserve("k-1", walletId, "rd-1", "rdo-1", 30001), 422, "IDEMPOTENCY_KEY_REUSED");
        // a competing order; an order below the minimum; someone else's coupon
        expectProblem(reserve("k-2", walletId, "rd-1", "rdo-2", 30000), 409, "RESERVED_BY_ANOTHER_ORDER");
        long other = wallet(couponId, "rd-2");
        expectProblem(reserve("k-3", other, "rd-2", "rdo-3", 19999), 422, "ORDER_BELOW_MINIMUM");
        expectProblem(reserve("k-4", other, "rd-1", "rdo-3", 30000), 404, "WALLET_COUPON_NOT_FOUND");
        assertThat(state(other)).isEqualTo("AVAILABLE");

        // confirm, then the wallet shows it used
        call("k-5", first, "confirm")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.state")
                .isEqualTo("USED");
        assertThat(state(walletId)).isEqualTo("USED");
        expectProblem(reserve("k-6", walletId, "rd-1", "rdo-2", 30000), 409, "ALREADY_USED");
        client().get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("rd-1"))
                .exchange()
                .expectBody()
                .jsonPath("$[0].state")
                .isEqualTo("USED")
                .jsonPath("$[0].orderId")
                .isEqualTo("rdo-1")
                .jsonPath("$[0].benefit.percent")
                .isEqualTo(10);

        // cancel after a refund: the coupon is back
        call("k-7", first, "cancel")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.state")
                .isEqualTo("CANCELLED")
                .jsonPath("$.couponState")
                .isEqualTo("AVAILABLE");
        assertThat(state(walletId)).isEqualTo("AVAILABLE");

        // reserve again, and let the reservation lapse: the job gives it back
        long second = redemptionId(
                reserve("k-8", walletId, "rd-1", "rdo-4", 50000).expectStatus().isCreated());
        jdbc.sql("UPDATE coupon_redemption SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = ?")
                .param(second)
                .update();
        await().atMost(Duration.ofSeconds(20)).until(() -> state(walletId).equals("AVAILABLE"));
        expectProblem(call("k-9", second, "confirm"), 409, "REDEMPTION_STATE_CONFLICT");

        // reserved, used, then cancelled after the coupon's expiry: it stays EXPIRED
        long third = redemptionId(reserve("k-10", walletId, "rd-1", "rdo-5", 100000)
                .expectStatus()
                .isCreated());
        call("k-11", third, "confirm")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.discount")
                .isEqualTo(5000);
        jdbc.sql("UPDATE coupon_wallet SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = ?")
                .param(walletId)
                .update();
        call("k-12", third, "cancel")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.couponState")
                .isEqualTo("EXPIRED");
        assertThat(state(walletId)).isEqualTo("EXPIRED");
        expectProblem(reserve("k-13", walletId, "rd-1", "rdo-6", 30000), 409, "EXPIRED");

        awaitEvents(
                walletId,
                "RESERVE:AVAILABLE>RESERVED",
                "CONFIRM:RESERVED>USED",
                "CANCEL:USED>AVAILABLE",
                "RESERVE:AVAILABLE>RESERVED",
                "TIME_OUT:RESERVED>AVAILABLE",
                "RESERVE:AVAILABLE>RESERVED",
                "CONFIRM:RESERVED>USED",
                "CANCEL:USED>EXPIRED");
        assertThat(changes.matching(c -> c.walletCouponId() == walletId).stream()
                        .map(WalletChanged::actor))
                .contains("redeemer:order-service", "system:reservation-ttl");

        // by order id; and what the operator sees
        client().get()
                .uri("/internal/v1/redemptions?orderId=rdo-1")
                .header("Authorization", REDEEMER)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.length()")
                .isEqualTo(1)
                .jsonPath("$[0].redemptionId")
                .isEqualTo(first);
        client().get()
                .uri("/admin/v1/coupons/{id}", couponId)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectBody()
                .jsonPath("$.benefit.type")
                .isEqualTo("PERCENT")
                .jsonPath("$.redemption.reserved")
                .isEqualTo(0)
                .jsonPath("$.redemption.used")
                .isEqualTo(0)
                .jsonPath("$.redemption.expired")
                .isEqualTo(1)
                .jsonPath("$.redemption.restored")
                .isEqualTo(1)
                .jsonPath("$.redemption.discountGranted")
                .isEqualTo(0);
    }

    @Test
    void shouldLetExactlyOneOfConcurrentReservationsWin() throws Exception {
        long walletId = wallet(coupon(Map.of("type", "FIXED_AMOUNT", "amount", 5000)), "race-1");
        int racers = 16;
        ExecutorService threads = Executors.newFixedThreadPool(racers);
        CountDownLatch start = new CountDownLatch(1);
        List<Future<String>> answers = new ArrayList<>();
        for (int i = 0; i < racers; i++) {
            String order = "race-o-" + i;
            answers.add(threads.submit(() -> {
                start.await();
                var result = reserve("race-k-" + order, walletId, "race-1", order, 10000)
                        .expectBody(Map.class)
                        .returnResult();
                return result.getStatus().value() + ":"
                        + result.getResponseBody().get("code");
            }));
        }
        start.countDown();
        List<String> outcomes = new ArrayList<>();
        for (Future<String> answer : answers) {
            outcomes.add(answer.get());
        }
        threads.shutdown();

        assertThat(outcomes.stream().collect(Collectors.groupingBy(s -> s, Collectors.counting())))
                .containsExactlyInAnyOrderEntriesOf(Map.of("201:null", 1L, "409:RESERVED_BY_ANOTHER_ORDER", 15L));
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon_redemption WHERE wallet_coupon_id = ?")
                        .param(walletId)
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
        assertThat(state(walletId)).isEqualTo("RESERVED");
    }

    @Test
    void shouldShowTheBenefitInEveryViewAndRefuseABadOne() {
        long couponId = coupon(Map.of("type", "FIXED_AMOUNT", "amount", 5000, "minOrderAmount", 30000));
        client().get()
                .uri("/api/v1/coupons/{id}", couponId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("bn-1"))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.benefit.type")
                .isEqualTo("FIXED_AMOUNT")
                .jsonPath("$.benefit.amount")
                .isEqualTo(5000)
                .jsonPath("$.benefit.minOrderAmount")
                .isEqualTo(30000)
                .jsonPath("$.benefit.percent")
                .doesNotExist();
        long plain = coupon(null);
        client().get()
                .uri("/api/v1/coupons/{id}", plain)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("bn-1"))
                .exchange()
                .expectBody()
                .jsonPath("$.benefit")
                .doesNotExist();

        long rows = jdbc.sql("SELECT COUNT(*) FROM coupon").query(Long.class).single();
        for (Object bad : List.of(
                Map.of("type", "FIXED_AMOUNT"),
                Map.of("type", "FIXED_AMOUNT", "amount", 0),
                Map.of("type", "FIXED_AMOUNT", "amount", 10, "percent", 5),
                Map.of("type", "PERCENT", "percent", 101),
                Map.of("type", "PERCENT", "percent", 10, "amount", 5),
                Map.of("type", "PERCENT", "percent", 10, "minOrderAmount", -1),
                Map.of("type", "SOMETHING", "amount", 5),
                Map.of("amount", 5))) {
            var body = new HashMap<String, Object>(Map.of(
                    "name",
                    "Bad benefit",
                    "totalQuantity",
                    10,
                    "openAt",
                    Instant.now()
                            .plus(1, ChronoUnit.DAYS)
                            .truncatedTo(ChronoUnit.SECONDS)
                            .toString(),
                    "issueRatePerSecond",
                    10,
                    "benefit",
                    bad));
            expectProblem(
                    client().post()
                            .uri("/admin/v1/coupons")
                            .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                            .contentType(MediaType.APPLICATION_JSON)
                            .bodyValue(body)
                            .exchange(),
                    400,
                    "INVALID_REQUEST");
        }
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon").query(Long.class).single())
                .isEqualTo(rows);
    }

    @Test
    void shouldRefuseMembersOperatorsAndWritesWithoutAKey() {
        long walletId = wallet(coupon(null), "sec-1");
        for (String token : List.of(TestEnvironment.memberToken("sec-1"), TestEnvironment.adminToken())) {
            expectProblem(
                    client().get()
                            .uri("/internal/v1/redemptions/1")
                            .header("Authorization", "Bearer " + token)
                            .exchange(),
                    403,
                    "FORBIDDEN");
        }
        expectProblem(client().get().uri("/internal/v1/redemptions/1").exchange(), 401, "UNAUTHORIZED");
        expectProblem(
                client().post()
                        .uri("/internal/v1/redemptions")
                        .header("Authorization", REDEEMER)
                        .contentType(MediaType.APPLICATION_JSON)
                        .bodyValue(Map.of(
                                "walletCouponId", walletId, "memberId", "sec-1", "orderId", "o", "orderAmount", 1))
                        .exchange(),
                400,
                "INVALID_REQUEST");
        expectProblem(call("k", 987_654_321L, "confirm"), 404, "REDEMPTION_NOT_FOUND");
        expectProblem(call("x".repeat(256), 1, "confirm"), 400, "INVALID_REQUEST");
        expectProblem(reserve("bad-amount", walletId, "sec-1", "o", -1), 400, "INVALID_REQUEST");
        expectProblem(reserve("bad-member", walletId, "sec 1", "o", 1), 400, "INVALID_REQUEST");
        expectProblem(reserve("bad-order", walletId, "sec-1", "o".repeat(65), 1), 400, "INVALID_REQUEST");
        expectProblem(
                client().get()
                        .uri("/internal/v1/redemptions")
                        .header("Authorization", REDEEMER)
                        .exchange(),
                400,
                "INVALID_REQUEST");
        assertThat(state(walletId)).isEqualTo("AVAILABLE");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM redemption_idempotency WHERE idempotency_key LIKE 'bad-%'")
                        .query(Long.class)
                        .single())
                .isZero();
    }

    @Test
    void shouldKeepTheMembersUseAsAReserveAndConfirmInOne() {
        long walletId = wallet(coupon(Map.of("type", "FIXED_AMOUNT", "amount", 5000)), "use-rd");
        client().post()
                .uri("/api/v1/me/coupons/{id}/use", walletId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("use-rd"))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("orderId", "app-1"))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.state")
                .isEqualTo("USED")
                .jsonPath("$.benefit.amount")
                .isEqualTo(5000);
        assertThat(state(walletId)).isEqualTo("USED");
        client().get()
                .uri("/internal/v1/redemptions?orderId=app-1")
                .header("Authorization", REDEEMER)
                .exchange()
                .expectBody()
                .jsonPath("$[0].state")
                .isEqualTo("USED")
                .jsonPath("$[0].discount")
                .isEqualTo(5000);
        awaitEvents(walletId, "USE:AVAILABLE>USED");
        assertThat(changes.matching(c -> c.walletCouponId() == walletId).stream()
                        .map(WalletChanged::actor))
                .containsOnly("member:use-rd");
    }

    /**
     * Security review N2: a redemption is its caller's. Another order service's token, with the same role, gets 404 for
     * it on every call, exactly as for an id that does not exist, and changes nothing; its list of an order shows none
     * of it.
     */
    @Test
    void shouldKeepEachRedemptionToTheCallerThatMadeIt() {
        long couponId = coupon(Map.of("type", "FIXED_AMOUNT", "amount", 500));
        long usedWallet = wallet(couponId, "own-1");
        long heldWallet = wallet(couponId, "own-2");
        long used = redemptionId(reserve("own-k1", usedWallet, "own-1", "own-o1", 1000)
                .expectStatus()
                .isCreated());
        call("own-k2", used, "confirm").expectStatus().isOk();
        long held = redemptionId(reserve("own-k3", heldWallet, "own-2", "own-o2", 1000)
                .expectStatus()
                .isCreated());

        for (long id : List.of(used, held)) {
            expectProblem(
                    client().get()
                            .uri("/internal/v1/redemptions/{id}", id)
                            .header("Authorization", OTHER)
                            .exchange(),
                    404,
                    "REDEMPTION_NOT_FOUND");
            for (String action : List.of("confirm", "release", "cancel")) {
                expectProblem(call(OTHER, "other-" + action + "-" + id, id, action), 404, "REDEMPTION_NOT_FOUND");
            }
        }
        client().get()
                .uri("/internal/v1/redemptions?orderId=own-o1")
                .header("Authorization", OTHER)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.length()")
                .isEqualTo(0);
        // the same order id reserved by the other service: the coupon is another order's to it
        expectProblem(
                reserve(OTHER, "other-k4", heldWallet, "own-2", "own-o2", 1000), 409, "RESERVED_BY_ANOTHER_ORDER");
        expectProblem(reserve(OTHER, "other-k5", usedWallet, "own-1", "own-o1", 1000), 409, "ALREADY_USED");

        assertThat(state(usedWallet)).isEqualTo("USED");
        assertThat(state(heldWallet)).isEqualTo("RESERVED");
        assertThat(jdbc.sql("SELECT caller FROM coupon_redemption WHERE id IN (?, ?)")
                        .params(used, held)
                        .query(String.class)
                        .list())
                .containsOnly("order-service");
        // its owner still can
        call("own-k6", used, "cancel")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.couponState")
                .isEqualTo("AVAILABLE");
        call("own-k7", held, "release").expectStatus().isOk();
    }

    /**
     * Security review N3: a member marks the coupon used from the app for the checkout's order id; the order service's
     * reservation of that order, below the minimum, must not get the discount: 409 USED_BY_MEMBER, nothing changes.
     */
    @Test
    void shouldRefuseToReserveACouponTheMemberMarkedUsedForTheSameOrder() {
        long walletId = wallet(coupon(Map.of("type", "FIXED_AMOUNT", "amount", 10, "minOrderAmount", 100)), "mu-1");
        client().post()
                .uri("/api/v1/me/coupons/{id}/use", walletId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("mu-1"))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("orderId", "mu-o1"))
                .exchange()
                .expectStatus()
                .isOk();

        expectProblem(reserve("mu-k1", walletId, "mu-1", "mu-o1", 20), 409, "USED_BY_MEMBER");
        expectProblem(reserve("mu-k2", walletId, "mu-1", "mu-o1", 500), 409, "USED_BY_MEMBER");
        assertThat(state(walletId)).isEqualTo("USED");
        assertThat(jdbc.sql("SELECT COUNT(*) FROM coupon_redemption WHERE wallet_coupon_id = ?")
                        .param(walletId)
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
    }

    /**
     * Correctness review N3: reserving again for the same order with another amount does not answer the old
     * reservation and its old discount: 409 ORDER_AMOUNT_CHANGED (release it and reserve again); the same amount
     * answers the reservation as before.
     */
    @Test
    void shouldRefuseAReservationOfTheSameOrderWithAnotherAmount() {
        long walletId = wallet(
                coupon(Map.of("type", "PERCENT", "percent", 10, "maxDiscount", 5000, "minOrderAmount", 20000)),
                "amt-1");
        long first = redemptionId(reserve("amt-k1", walletId, "amt-1", "amt-o1", 30000)
                .expectStatus()
                .isCreated());

        expectProblem(reserve("amt-k2", walletId, "amt-1", "amt-o1", 15000), 409, "ORDER_AMOUNT_CHANGED");
        expectProblem(reserve("amt-k3", walletId, "amt-1", "amt-o1", 40000), 409, "ORDER_AMOUNT_CHANGED");
        assertThat(redemptionId(reserve("amt-k4", walletId, "amt-1", "amt-o1", 30000)
                        .expectStatus()
                        .isOk()))
                .isEqualTo(first);
        assertThat(jdbc.sql("SELECT order_amount, discount FROM coupon_redemption WHERE id = ?")
                        .param(first)
                        .query((rs, row) -> rs.getLong(1) + "/" + rs.getLong(2))
                        .single())
                .isEqualTo("30000/3000");

        // released, the order reserves again at its new amount: checked against the minimum
        call("amt-k5", first, "release").expectStatus().isOk();
        expectProblem(reserve("amt-k6", walletId, "amt-1", "amt-o1", 15000), 422, "ORDER_BELOW_MINIMUM");
        reserve("amt-k7", walletId, "amt-1", "amt-o1", 25000)
                .expectStatus()
                .isCreated()
                .expectBody()
                .jsonPath("$.discount")
                .isEqualTo(2500);
    }

    /** A write without its Idempotency-Key: 400, and the problem names the header. */
    @Test
    void shouldNameTheMissingIdempotencyKeyHeader() {
        long walletId = wallet(coupon(null), "nokey-1");
        client().post()
                .uri("/internal/v1/redemptions")
                .header("Authorization", REDEEMER)
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("walletCouponId", walletId, "memberId", "nokey-1", "orderId", "o", "orderAmount", 1))
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("INVALID_REQUEST")
                .jsonPath("$.detail")
                .value(detail -> assertThat((String) detail).contains("Idempotency-Key"));
        client().post()
                .uri("/internal/v1/redemptions/1/confirm")
                .header("Authorization", REDEEMER)
                .exchange()
                .expectStatus()
                .isBadRequest()
                .expectBody()
                .jsonPath("$.detail")
                .value(detail -> assertThat((String) detail).contains("Idempotency-Key"));
        assertThat(state(walletId)).isEqualTo("AVAILABLE");
    }

    @Test
    void shouldRecordAnAvailableCouponPastItsExpiryAsExpired() {
        long couponId = coupon(null);
        long walletId = wallet(couponId, "exp-1");
        jdbc.sql("UPDATE coupon_wallet SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = ?")
                .param(walletId)
                .update();
        await().atMost(Duration.ofSeconds(20)).until(() -> state(walletId).equals("EXPIRED"));
        awaitEvents(walletId, "EXPIRE:AVAILABLE>EXPIRED");
        assertThat(jdbc.sql("SELECT expired FROM coupon_redemption_stats WHERE coupon_id = ?")
                        .param(couponId)
                        .query(Long.class)
                        .single())
                .isEqualTo(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            var gauge = meters.find("coupon.redemption.coupons")
                    .tags("coupon", Long.toString(couponId), "state", "expired")
                    .gauge();
            return gauge != null && gauge.value() == 1.0;
        });
    }
}
