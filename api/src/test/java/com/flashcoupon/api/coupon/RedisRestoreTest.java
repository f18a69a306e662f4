package com.flashcoupon.api.coupon;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.RedisMonitor;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Redis lost a coupon entirely (every key of it gone) and the api restores it from MySQL: every member MySQL knows is
 * answered as before (200 to a repeat, their outcome on status), the stock cap counts every published admission once,
 * the drainer publishes nothing twice, and the admissions lost with Redis are counted for the operator.
 */
@ApiTest
class RedisRestoreTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();

    private void failed(long couponId, String member, long sequence) {
        jdbc.sql("INSERT INTO coupon_issue_failure (coupon_id, member_id, request_seq, reason, failed_at)"
                        + " VALUES (?, ?, ?, 'SOLD_OUT', NOW(3))")
                .params(couponId, member, sequence)
                .update();
        jdbc.sql("UPDATE coupon SET failed_count = failed_count + 1 WHERE id = ?")
                .param(couponId)
                .update();
    }

    /** Redis lost every key of the coupon (a FLUSHDB, or a Redis started empty). */
    private void loseRedis(long couponId) {
        redis.delete(CouponKeys.state(couponId));
    }

    private WebTestClient.ResponseSpec status(long couponId, String member) {
        return client().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", couponId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange();
    }

    @Test
    void shouldAnswerAnIssuedMember200WithTheirWalletWhenTheyAskAgainAfterTheLoss() {
        long id = createCoupon(10, 1);
        long wallet = issuedInMySql(id, "issued-before", 1);
        publishedInMySql(id, 1, 1);
        loseRedis(id);

        requestCoupon(id, "issued-before")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED")
                .jsonPath("$.walletCouponId")
                .isEqualTo(wallet);
        assertThat(jdbc.sql("SELECT published_count FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Long.class)
                        .single())
                .as("no second admission was published")
                .isEqualTo(1);
    }

    /**
     * After a restore, the worker records a member whose sequence it cannot place in the queue (MySQL's published count
     * lagged behind Kafka's): the result is written, the queue left alone. Asking again answers them with it, whether
     * stock is left (never a second admission) or not (never sold out).
     */
    @Test
    void shouldAnswerADecidedMemberMissingFromTheQueueWithTheirResult() {
        long id = createCoupon(1, 1);
        requestCoupon(id, "fills-the-stock").expectStatus().isAccepted();
        redis.opsForHash().put(CouponKeys.result(id), "recorded-not-queued", "I:77");
        redis.opsForHash().put(CouponKeys.result(id), "failed-not-queued", "F:SOLD_OUT");

        requestCoupon(id, "recorded-not-queued")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED");
        requestCoupon(id, "failed-not-queued")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("FAILED");
        assertThat(redis.opsForZSet().size(CouponKeys.queue(id))).isEqualTo(1);
    }

    @Test
    void shouldAnswerAFailedMemberFailedWhenTheyAskAgainAfterTheLoss() {
        long id = createCoupon(10, 1);
        failed(id, "failed-before", 1);
        publishedInMySql(id, 1, 1);
        loseRedis(id);
        requestCoupon(id, "somebody-new").expectStatus().isAccepted();

        requestCoupon(id, "failed-before")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("FAILED")
                .jsonPath("$.failureReason")
                .isEqualTo("SOLD_OUT");
        status(id, "failed-before")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("FAILED");
    }

    /** An event of 3 whose whole stock MySQL issued, then Redis lost it; returns its id. */
    private long soldOutByMySqlThenLost() {
        long id = createCoupon(3, 1);
        issuedInMySql(id, "a", 1);
        issuedInMySql(id, "b", 2);
        issuedInMySql(id, "c", 3);
        publishedInMySql(id, 3, 3);
        loseRedis(id);
        return id;
    }

    @Test
    void shouldAdmitNobodyNewWhenMySqlIssuedTheWholeStock() {
        long id = soldOutByMySqlThenLost();

        expectProblem(requestCoupon(id, "newcomer"), 409, "SOLD_OUT");
        requestCoupon(id, "b").expectStatus().isOk();
    }

    /**
     * Another caller (another instance, or this one's gauges) holds the restore lock when a member asks: the member's
     * request waits for that restore to end and is answered as the restored event says, not with a 503 (the race a
     * clean clone's CI run lost once: the gauges' refresh restored the event while the test's member asked).
     */
    @Test
    void shouldAnswerAMemberAskingDuringAnotherCallersRestoreAsTheRestoredEventSays() throws Exception {
        long id = soldOutByMySqlThenLost();
        redis.opsForValue().set(CouponKeys.restoring(id), "another-caller", Duration.ofMinutes(1));

        try (var monitor = new RedisMonitor(TestEnvironment.REDIS_URL)) {
            var answer = CompletableFuture.supplyAsync(() -> requestCoupon(id, "newcomer")
                    .returnResult(String.class)
                    .getStatus()
                    .value());
            boolean waiting = monitor.awaitCommand(answer::isDone, "exists", CouponKeys.restoring(id));
            assertThat(waiting)
                    .as("the request waits for the other restore (it answered %s at once)", answer.getNow(null))
                    .isTrue();

            // the other caller ends its restore: the meta as MySQL has it, written with its token
            Long restored = redis.execute(
                    RedisScript.of(CouponMirror.MIRROR_TEXT, Long.class),
                    CouponMirror.keys(id),
                    "Test coupon",
                    "3",
                    Long.toString(System.currentTimeMillis() - 60_000),
                    "0",
                    "0",
                    "1",
                    "3",
                    "1000",
                    "3",
                    "another-caller",
                    "0",
                    "0");
            assertThat(restored).isZero();
            assertThat(answer.get(30, TimeUnit.SECONDS)).isEqualTo(409);
        }
    }

    /**
     * The restored members stand below the drain cursor (they were published before the loss) and the stock floor
     * counts only the published admissions MySQL has no outcome for, so the cap counts each admission once and a new
     * member's position counts only who is still ahead.
     */
    @Test
    void shouldKeepTheCapExactAndPublishNothingTwiceWhenMembersAreRestored() {
        long id = createCoupon(6, 1);
        issuedInMySql(id, "a", 1);
        issuedInMySql(id, "b", 2);
        failed(id, "c", 3);
        publishedInMySql(id, 4, 4); // the fourth is in Kafka, not decided yet
        loseRedis(id);

        requestCoupon(id, "new-1")
                .expectStatus()
                .isAccepted()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(2); // the undecided fourth, then this member
        requestCoupon(id, "new-2").expectStatus().isAccepted();
        expectProblem(requestCoupon(id, "new-3"), 409, "SOLD_OUT"); // 4 published + 2 new = 6

        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "base")).isEqualTo("1");
        assertThat(redis.opsForValue().get(CouponKeys.done(id))).isEqualTo("3");
        // the drainer (100 ms ticks) publishes the two new members and nobody else
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> "5".equals(redis.opsForValue().get(CouponKeys.cursor(id))));
        assertThat(redis.opsForZSet().range(CouponKeys.queue(id), 3, -1)).containsExactly("new-1", "new-2");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(20))
                .until(() -> jdbc.sql("SELECT published_count FROM coupon WHERE id = ?")
                                .param(id)
                                .query(Long.class)
                                .single()
                        == 6);
    }

    @Test
    void shouldAnswer503AndAdmitNoKnownMemberWhileAnotherInstanceRestores() {
        long id = createCoupon(10, 1);
        issuedInMySql(id, "issued-before", 1);
        publishedInMySql(id, 1, 1);
        loseRedis(id);
        redis.opsForValue().set(CouponKeys.restoring(id), "another-instance", Duration.ofMinutes(1));

        expectProblem(
                requestCoupon(id, "issued-before").expectHeader().valueEquals("Retry-After", "1"), 503, "UNAVAILABLE");
        assertThat(redis.hasKey(CouponKeys.meta(id))).isFalse();

        redis.delete(CouponKeys.restoring(id)); // that instance died: its lock expired
        requestCoupon(id, "issued-before").expectStatus().isOk();
    }

    /** A restore that died after some pages left a queue without meta: the next request finishes it. */
    @Test
    void shouldFinishAHalfRestoreWhenTheNextRequestComes() {
        long id = createCoupon(10, 1);
        issuedInMySql(id, "first-page", 1);
        issuedInMySql(id, "second-page", 2);
        publishedInMySql(id, 2, 2);
        loseRedis(id);
        redis.opsForZSet().add(CouponKeys.queue(id), "first-page", 1);

        requestCoupon(id, "second-page").expectStatus().isOk();
        requestCoupon(id, "first-page").expectStatus().isOk();
        assertThat(redis.opsForValue().get(CouponKeys.cursor(id))).isEqualTo("2");
    }

    /**
     * Admissions the drainer saw in Redis but MySQL never saw published were lost with Redis: the restore counts them
     * once, and the operator sees them.
     */
    @Test
    void shouldCountTheAdmissionsLostWithRedisForTheOperator() {
        long id = createCoupon(100, 1);
        issuedInMySql(id, "a", 1);
        publishedInMySql(id, 2, 7); // 7 admitted, 2 published: 5 were lost with Redis
        loseRedis(id);

        requestCoupon(id, "after").expectStatus().isAccepted();
        loseRedis(id); // lost again: the five are not counted twice
        requestCoupon(id, "again").expectStatus().isAccepted();

        client().get()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.stats.unknown")
                .isEqualTo(5);
    }

    @Test
    void shouldCountTheAdmissionsLostWithRedisWhenNoneWasDecidedYet() {
        long id = createCoupon(100, 1);
        publishedInMySql(id, 2, 6);
        loseRedis(id);

        requestCoupon(id, "after")
                .expectStatus()
                .isAccepted()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(3); // the two published before the loss, then this member

        assertThat(jdbc.sql("SELECT unknown_count FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Long.class)
                        .single())
                .isEqualTo(4);
    }

    /**
     * More members than one page (5,000): every page is written, and the figure of how long the first request waited
     * for the whole restore is printed (RESTORE-FIGURE), never asserted.
     */
    @Test
    void shouldRestoreEveryPageWhenAnEventHasManyMembers() {
        int members = 20_000;
        long id = createCoupon(members + 10, 1);
        for (int from = 1; from <= members; from += 1_000) {
            StringBuilder sql = new StringBuilder(
                    "INSERT INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at) VALUES ");
            java.util.List<Object> params = new java.util.ArrayList<>();
            for (int seq = from; seq < from + 1_000; seq++) {
                sql.append(seq == from ? "" : ",").append("(?, ?, ?, NOW(3), NOW(3))");
                params.addAll(java.util.List.of(id, "many-" + seq, seq));
            }
            jdbc.sql(sql.toString()).params(params).update();
        }
        jdbc.sql("UPDATE coupon SET issued_count = ?, published_count = ?, admitted_seen_count = ? WHERE id = ?")
                .params(members, members, members, id)
                .update();
        loseRedis(id);

        long started = System.nanoTime();
        requestCoupon(id, "many-" + members).expectStatus().isOk();
        System.out.printf(
                "RESTORE-FIGURE %,d members put back into Redis in %.2f s (the first request waited for it)%n",
                members, (System.nanoTime() - started) / 1e9);

        assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(members);
        assertThat(redis.opsForHash().size(CouponKeys.result(id))).isEqualTo(members);
        assertThat(redis.opsForValue().get(CouponKeys.cursor(id))).isEqualTo(Integer.toString(members));
        assertThat(redis.opsForValue().get(CouponKeys.done(id))).isEqualTo(Integer.toString(members));
        requestCoupon(id, "many-1").expectStatus().isOk();
        requestCoupon(id, "newcomer")
                .expectStatus()
                .isAccepted()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(1);
    }

    @Test
    void shouldPutBackResultsRedisLostAfterTheWorkerWroteThemSoNobodyStaysWaiting() {
        long id = createCoupon(10, 1000);
        requestCoupon(id, "kept").expectStatus().isAccepted();
        requestCoupon(id, "lost").expectStatus().isAccepted();
        long keptWallet = issuedInMySql(id, "kept", 1);
        long lostWallet = issuedInMySql(id, "lost", 2);
        // the worker recorded both results in Redis; a failover then lost the second (the primary died before its
        // replica had it) after the worker committed its offsets, so nothing writes it again
        redis.opsForHash().put(CouponKeys.result(id), "kept", CouponKeys.ISSUED_PREFIX + keptWallet);
        redis.opsForValue().set(CouponKeys.done(id), "1");
        status(id, "lost")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("WAITING");

        // the retire pass (every 2 s) sees Redis still behind what MySQL had a pass earlier, and repairs it
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> assertThat(redis.opsForHash().get(CouponKeys.result(id), "lost"))
                        .as("the lost result put back")
                        .isNotNull());
        status(id, "lost")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED")
                .jsonPath("$.walletCouponId")
                .isEqualTo(lostWallet);
        assertThat(redis.opsForValue().get(CouponKeys.done(id))).isEqualTo("2");
        assertThat(redis.opsForHash().get(CouponKeys.result(id), "kept"))
                .isEqualTo(CouponKeys.ISSUED_PREFIX + keptWallet);
    }

    /**
     * The same loss right after the event settled (correctness review F6): a settled event used to be left alone for
     * its whole retention, its members reading WAITING with their wallet in MySQL. The retire pass still puts lost
     * results back, every few passes.
     */
    @Test
    void shouldPutBackResultsLostAfterTheEventSettled() {
        long id = createCoupon(2, 1000);
        requestCoupon(id, "settled-kept").expectStatus().isAccepted();
        requestCoupon(id, "settled-lost").expectStatus().isAccepted();
        long keptWallet = issuedInMySql(id, "settled-kept", 1);
        long lostWallet = issuedInMySql(id, "settled-lost", 2);
        redis.opsForHash().put(CouponKeys.result(id), "settled-kept", CouponKeys.ISSUED_PREFIX + keptWallet);
        redis.opsForHash().put(CouponKeys.result(id), "settled-lost", CouponKeys.ISSUED_PREFIX + lostWallet);
        redis.opsForValue().set(CouponKeys.done(id), "2");
        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> jdbc.sql("SELECT settled_at IS NOT NULL FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Boolean.class)
                        .single());

        redis.opsForHash().delete(CouponKeys.result(id), "settled-lost");
        redis.opsForValue().set(CouponKeys.done(id), "1");

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> redis.opsForHash().get(CouponKeys.result(id), "settled-lost") != null);
        status(id, "settled-lost")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED")
                .jsonPath("$.walletCouponId")
                .isEqualTo(lostWallet);
    }

    /**
     * A member admitted again after a restore (queued with a new sequence while their first admission, still in
     * Kafka, is counted in the meta's base) whose result the repair writes before the worker does (correctness review
     * F7): the repair takes them out of base, as the worker would have, so the event's admissions count them once and
     * it can settle.
     */
    @Test
    void shouldCountAMemberAdmittedAgainOnceWhenTheRepairWritesTheirResultFirst() {
        long id = createCoupon(5, 1000);
        requestCoupon(id, "again").expectStatus().isAccepted();
        // as a restore leaves it: the first admission (sequence 1) counted in base, the member queued again at 7
        redis.opsForHash().put(CouponKeys.meta(id), "base", "1");
        redis.opsForZSet().add(CouponKeys.queue(id), "again", 7);
        issuedInMySql(id, "again", 1);

        org.awaitility.Awaitility.await()
                .atMost(Duration.ofSeconds(30))
                .until(() -> redis.opsForHash().get(CouponKeys.result(id), "again") != null);
        assertThat(redis.opsForHash().get(CouponKeys.meta(id), "base"))
                .as("the first admission leaves base with the result written")
                .isEqualTo("0");
    }
}
