package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * Redis loses every key during a crowd (how, the test says: {@link Loss}), and the api restores the coupon from MySQL.
 * Every member told 202 ends ISSUED or FAILED, or was lost with Redis before being published and is counted as unknown
 * for the operator; nobody gets two wallets, the stock is never over-issued, a member MySQL knows who asks again is
 * answered 200 with their outcome, not admitted a second time, and nothing is stranded: new members take what the
 * lost admissions held until exactly the stock is issued. Run on one Redis ({@link RedisRestoreTest}) and on a Redis
 * Cluster ({@link ClusterRestoreTest}).
 */
final class RestoreScenario {

    static final int STOCK = 600;

    /**
     * Makes Redis lose the event's keys (every key, or, with {@link #run(int, Loss, boolean) whole} false, the keys of
     * some of its shards alone); returns once it answers again.
     */
    interface Loss {
        void lose(long couponId) throws Exception;
    }

    private final Stack stack;
    private final WebTestClient http;
    private final String name;

    RestoreScenario(Stack stack, String name) {
        this.stack = stack;
        this.http = stack.http();
        this.name = name;
    }

    private int ask(long couponId, String member) {
        return http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + Stack.token(member, List.of()))
                .exchange()
                .returnResult(String.class)
                .getStatus()
                .value();
    }

    /** Asks until the answer is not a 503 (the coupon being restored, or Redis not back yet). */
    private int askUntilAnswered(long couponId, String member) {
        int[] status = {503};
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> (status[0] = ask(couponId, member)) != 503);
        return status[0];
    }

    private Map<?, ?> adminView(long couponId) {
        return stack.adminView(couponId);
    }

    private long column(String column, long couponId) {
        return stack.jdbc
                .sql("SELECT " + column + " FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    private Set<String> members(String table, long couponId) {
        return new HashSet<>(stack.jdbc
                .sql("SELECT member_id FROM " + table + " WHERE coupon_id = ?")
                .param(couponId)
                .query(String.class)
                .list());
    }

    /** The crowd, the loss, the restore and the checks, for an event of {@code shards} stock shards. */
    void run(int shards, Loss loss) throws Exception {
        run(shards, loss, true);
    }

    /**
     * As above; {@code whole} false: the loss takes some shards alone, whose lost admissions the operator's {@code
     * unknown} does not count (docs/architecture.md, "Stock shards": only a whole loss counts them), so that check is
     * left out; every other promise holds.
     */
    void run(int shards, Loss loss, boolean whole) throws Exception {
        run(shards, loss, whole, false);
    }

    /**
     * As above; {@code afterCrowd}: the loss comes once the crowd has its answers, so that only the newcomers asked
     * after it can take what the loss freed (the crowd itself takes it when the loss comes in its middle).
     */
    void run(int shards, Loss loss, boolean whole, boolean afterCrowd) throws Exception {
        // a slow issue rate, so that admissions are still waiting in Redis when it dies, however fast the crowd is
        long couponId = Stack.createCoupon(http, "Restore " + name, STOCK, 5, shards);
        List<String> crowdMembers = Crowd.members(name + "-" + shards, 3_000);

        CompletableFuture<List<Crowd.Answer>> crowd =
                CompletableFuture.supplyAsync(() -> Crowd.ask(stack.apiUrl(), couponId, crowdMembers, 300, 32));
        // Sold out, some decided, some in Kafka, the rest still queued in Redis when it dies.
        await().atMost(Duration.ofSeconds(60))
                .until(() -> stack.walletCount(couponId) >= 40
                        && ((Number) adminView(couponId).get("remainingQuantity")).longValue() == 0);
        // the worker stopped first: what the drainer publishes meanwhile is in Kafka, undecided, when Redis dies; and
        // the drainer saw every admission (MySQL's admitted_seen_count is the whole stock), so the unknown count is
        // exact, not a lower bound
        stack.stopWorker();
        long decided = stack.walletCount(couponId) + stack.failureCount(couponId);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> column("admitted_seen_count", couponId) >= STOCK
                        && column("published_count", couponId) > decided);
        if (afterCrowd) {
            crowd.join();
        }
        loss.lose(couponId);
        java.time.Instant restarted = java.time.Instant.now();
        stack.startWorker();
        // the operator speeds issuance up: an operator's change on a coupon Redis lost restores it, or waits for the
        // restore under way, and lands
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> http.patch()
                                .uri("/admin/v1/coupons/{id}", couponId)
                                .header("Authorization", "Bearer " + Stack.token("operator", List.of("coupon-admin")))
                                .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                                .bodyValue(Map.of("issueRatePerSecond", 1_000))
                                .exchange()
                                .returnResult(String.class)
                                .getStatus()
                                .value()
                        == 200);

        List<Crowd.Answer> answers = crowd.get();
        assertThat(Crowd.countByStatus(answers).keySet()).isSubsetOf(200, 202, 409, 429, 503);

        // A 503 is "not confirmed": asking again tells (200 admitted before, 202 now, 409 no stock left).
        Set<String> told202 = answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toCollection(HashSet::new));
        Set<String> unconfirmed = answers.stream()
                .filter(answer -> answer.status() == 503)
                .map(Crowd.Answer::memberId)
                .filter(member -> !told202.contains(member))
                .collect(Collectors.toSet());
        Set<String> accepted = new HashSet<>(told202);
        for (String member : unconfirmed) {
            int status = askUntilAnswered(couponId, member);
            assertThat(status).isIn(200, 202, 409);
            if (status == 200 || status == 202) {
                accepted.add(member);
            }
        }

        // settled: every admission Redis holds is published and decided (a member admitted twice counts once; MySQL's
        // published high-water mark counts both of their requests)
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> {
                    Map<?, ?> view = adminView(couponId);
                    Map<?, ?> stats = (Map<?, ?>) view.get("stats");
                    return ((Number) view.get("waiting")).longValue() == 0
                            && ((Number) stats.get("published")).longValue()
                                    >= ((Number) stats.get("admitted")).longValue();
                });
        // seconds to settle: from Redis back (empty) to the last outcome written in MySQL. (Not the event's settled_at:
        // in one full run of the suite the event was not found settled within 60 s after a restore although every
        // admission was published and decided; that is an open finding of its own, not this test's subject.)
        java.time.Instant settledAt = stack.jdbc
                .sql(
                        "SELECT GREATEST(COALESCE((SELECT MAX(issued_at) FROM coupon_wallet WHERE coupon_id = ?), '1970-01-01'),"
                                + " COALESCE((SELECT MAX(failed_at) FROM coupon_issue_failure WHERE coupon_id = ?), '1970-01-01'))")
                .param(couponId)
                .param(couponId)
                .query(java.sql.Timestamp.class)
                .single()
                .toInstant();
        double settleSeconds = Duration.between(restarted, settledAt).toMillis() / 1e3;

        Set<String> wallets = members("coupon_wallet", couponId);
        Set<String> failures = members("coupon_issue_failure", couponId);
        Set<String> lost = accepted.stream()
                .filter(member -> !wallets.contains(member) && !failures.contains(member))
                .collect(Collectors.toSet());
        long unknown = ((Number) ((Map<?, ?>) adminView(couponId).get("stats")).get("unknown")).longValue();
        long duplicates = stack.jdbc
                .sql("SELECT COUNT(*) FROM (SELECT member_id FROM coupon_wallet WHERE coupon_id = ?"
                        + " GROUP BY member_id HAVING COUNT(*) > 1) twice")
                .param(couponId)
                .query(Long.class)
                .single();
        long overIssue = Math.max(0, stack.issuedCount(couponId) - STOCK);
        System.out.printf(
                "FAULT-SUMMARY " + name + "-lost-restored-from-mysql (" + shards
                        + " shards): told 202 %d, issued %d, failed %d, unknown %d, lost %d,"
                        + " duplicates %d, over-issue %d, %.1f s to settle%n",
                accepted.size(),
                wallets.size(),
                failures.size(),
                unknown,
                lost.size(),
                duplicates,
                overIssue,
                settleSeconds);

        assertThat(duplicates).isZero();
        assertThat(overIssue).isZero();
        if (whole) {
            assertThat((long) lost.size())
                    .as("every member told 202 without an outcome is counted as unknown")
                    .isLessThanOrEqualTo(unknown);
        }
        Set<String> answered = new HashSet<>(accepted);
        answered.removeAll(lost);
        Invariants.check(stack.jdbc, couponId, answered, 1_000);

        // every member MySQL knows who asks again is answered 200 with their outcome, never admitted again
        List<String> known = new java.util.ArrayList<>(wallets);
        known.addAll(failures);
        Map<Integer, Long> again = Crowd.countByStatus(Crowd.ask(stack.apiUrl(), couponId, known, 0, 32));
        assertThat(again).containsOnlyKeys(200).containsEntry(200, (long) known.size());
        assertThat(stack.issuedCount(couponId)).isEqualTo(wallets.size());

        // nothing stranded by the loss: what the lost admissions held is free again, and new members take it until
        // exactly the stock is issued (a place held twice by a member who asked again before their first request was
        // decided, or one left out of every shard's cap, would leave coupons no one can get)
        int latecomers = 0;
        for (int round = 0;
                round < 5 && ((Number) adminView(couponId).get("remainingQuantity")).longValue() > 0;
                round++) {
            List<String> late = Crowd.members(name + "-late-" + shards + "-" + round, STOCK / 2);
            latecomers += (int) Crowd.ask(stack.apiUrl(), couponId, late, 0, 32).stream()
                    .filter(answer -> answer.status() == 202)
                    .count();
        }
        int admittedLate = latecomers;
        System.out.printf(
                "FAULT-SUMMARY %s-lost-restored-from-mysql (%d shards): %d admitted after the crowd, to the stock%n",
                name, shards, admittedLate);
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(stack.issuedCount(couponId))
                        .as("exactly the stock issued, %d admitted after the crowd", admittedLate)
                        .isEqualTo(STOCK));
        assertThat(((Number) adminView(couponId).get("remainingQuantity")).longValue())
                .isZero();
    }
}
