package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.StockShards;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.MediaType;

/**
 * An event whose stock is in six shards, end to end through HTTP, Redis, Kafka and MySQL (docs/architecture.md, "Stock
 * shards"): a crowd of N + 10% gets exactly N wallets, one per member, issued in the order the drainer published across
 * the shards, with nothing left on any shard; each member's result is on their home shard, where their status and live
 * stream read it; results a failover loses are repaired on their shard, and the event retires; an eligibility list
 * over six shards admits exactly its members. On one Redis: the cluster topology's end-to-end runs are
 * ClusterRestoreTest's (a fair start, a whole loss) and ShardStockClusterTest's, so that the suite starts one Redis
 * Cluster at a time beside the fault suite's AOF-always Redis (with a second cluster here, a clean-clone run on a
 * loaded machine saw the fault suite's api time out on its Redis handshake at start-up).
 */
class ShardedPipelineTest {

    private static final int DRAIN_BATCH = 50;
    private static final int SHARDS = 6;
    /**
     * Long enough that the repair below (results deleted after the event settled) happens before the event retires:
     * the retire pass checks a settled event for lost results about once a second and needs two looks.
     */
    private static final Duration RETENTION = Duration.ofSeconds(20);

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> redis;
    private static Stack stack;

    @BeforeAll
    static void start() {
        stack = new Stack(
                Map.of(
                        "coupon.drain.max-batch",
                        DRAIN_BATCH,
                        "coupon.drain.tick",
                        "100ms",
                        "coupon.shards.max-served",
                        SHARDS,
                        // the event retires within the test, after the test looked at it settled and repaired
                        "coupon.retention.after",
                        RETENTION.toMillis() + "ms",
                        "coupon.retention.check-every",
                        "200ms",
                        "coupon.retention.mark-ttl",
                        "1s"),
                Map.of("coupon.worker.max-batch", 200));
        client = RedisClient.create(Stack.REDIS_URL);
        connection = client.connect();
        redis = connection.sync();
    }

    @AfterAll
    static void stop() {
        if (connection != null) {
            connection.close();
            client.shutdown();
        }
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void shouldIssueExactlyNToACrowdOfNPlusTenPercentOverSixShards() {
        int total = 600;
        long couponId = Stack.createCoupon(stack.http(), "Sharded pipeline", total, 2_000, SHARDS);
        List<String> members = Crowd.members("sharded", total + total / 10);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, members, 0, 64);

        Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
        assertThat(byStatus)
                .as("statuses; no answer: %s", Crowd.noAnswers(answers))
                .containsOnlyKeys(202, 409);
        assertThat(byStatus).containsEntry(202, (long) total).containsEntry(409, (long) total / 10);
        Set<String> accepted = answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toSet());

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) >= total);
        Invariants.check(stack.jdbc, couponId, accepted, DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(total);
        assertThat(stack.jdbc
                        .sql("SELECT request_seq FROM coupon_wallet WHERE coupon_id = ? ORDER BY request_seq")
                        .param(couponId)
                        .query(Long.class)
                        .list())
                .as("one sequence per record, in publication order: 1 to N")
                .containsExactlyElementsOf(java.util.stream.LongStream.rangeClosed(1, total)
                        .boxed()
                        .toList());

        // every shard: its stock all taken, nothing in escrow, everything published, every result on it
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            long done = 0;
            for (int shard = 0; shard < SHARDS; shard++) {
                String tag = StockShards.tag(couponId, SHARDS, shard);
                Map<String, String> stock = redis.hgetall(StockShards.stock(tag));
                long cap = Long.parseLong(stock.get("share")) + Long.parseLong(stock.get("moved"));
                Long queued = redis.zcard(StockShards.queue(tag));
                assertThat(cap).as("shard %d's cap", shard).isEqualTo(queued);
                assertThat(redis.hlen(StockShards.escrow(tag))).isZero();
                assertThat(redis.get(StockShards.cursor(tag))).isEqualTo(Long.toString(queued));
                String shardDone = redis.get(StockShards.done(tag));
                assertThat(shardDone).isEqualTo(Long.toString(queued));
                done += Long.parseLong(shardDone);
            }
            assertThat(done).isEqualTo(total);
        });

        // results a failover lost on one shard (written on a primary that died before its replica had them) are put
        // back from MySQL by the retire pass, on their home shard
        String lostTag = StockShards.tag(couponId, SHARDS, 2);
        long lostCount = redis.hlen(StockShards.result(lostTag));
        assertThat(lostCount).isPositive();
        redis.del(StockShards.result(lostTag), StockShards.done(lostTag));
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(200))
                .untilAsserted(() -> {
                    assertThat(redis.hlen(StockShards.result(lostTag))).isEqualTo(lostCount);
                    assertThat(redis.get(StockShards.done(lostTag))).isEqualTo(Long.toString(lostCount));
                });

        // the operator's view adds up every shard
        Map<?, ?> view = stack.adminView(couponId);
        assertThat(view.get("remainingQuantity")).isEqualTo(0);
        assertThat(view.get("status")).isEqualTo("SOLD_OUT");
        assertThat(view.get("waiting")).isEqualTo(0);
        Map<?, ?> stats = (Map<?, ?>) view.get("stats");
        assertThat(stats.get("admitted")).isEqualTo(total);
        assertThat(stats.get("published")).isEqualTo(total);
        assertThat(stats.get("issued")).isEqualTo(total);
        assertThat(stats.get("rejectedSoldOut")).isEqualTo(total / 10);

        // a member's status, read on their home shard whichever it is, then from MySQL once the event retired
        List<String> someMembers = accepted.stream().sorted().limit(12).toList();
        assertIssued(couponId, someMembers);

        await().atMost(RETENTION.plusSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> redis.keys("{cpn:" + couponId + "*").isEmpty()
                        && stack.jdbc
                                        .sql("SELECT COUNT(*) FROM coupon WHERE id = ? AND keys_removed_at IS NOT NULL")
                                        .param(couponId)
                                        .query(Long.class)
                                        .single()
                                == 1);
        assertIssued(couponId, someMembers);
    }

    /** An eligibility list over six shards: exactly the listed members admitted, up to the stock. */
    @Test
    void shouldIssueOnlyToTheListedMembersOverSixShards() {
        int total = 50;
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<?, ?> created = Stack.createCoupon(
                stack.http(),
                Map.of(
                        "name",
                        "Members only over six shards",
                        "totalQuantity",
                        total,
                        "openAt",
                        now.plusSeconds(3_600).toString(),
                        "announceAt",
                        now.minusSeconds(60).toString(),
                        "issueRatePerSecond",
                        2_000,
                        "stockShards",
                        SHARDS,
                        "eligibility",
                        Map.of("list", true)));
        long couponId = ((Number) created.get("id")).longValue();
        List<String> listed = Crowd.members("listed-" + couponId, total + 10);
        List<String> unlisted = Crowd.members("unlisted-" + couponId, 30);
        Stack.admin(stack.http().put().uri("/admin/v1/coupons/{id}/eligible-members", couponId))
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue(String.join("\n", listed) + "\n")
                .exchange()
                .expectStatus()
                .isOk();
        // opened now: its openAt moves to the past in MySQL, then an operator's change mirrors it on every shard
        stack.jdbc
                .sql("UPDATE coupon SET open_at = open_at - INTERVAL 2 HOUR WHERE id = ?")
                .param(couponId)
                .update();
        Stack.admin(stack.http().patch().uri("/admin/v1/coupons/{id}", couponId))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 2_000))
                .exchange()
                .expectStatus()
                .isOk();

        List<String> crowd = new java.util.ArrayList<>(listed);
        crowd.addAll(unlisted);
        java.util.Collections.shuffle(crowd, new java.util.Random(couponId));
        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, crowd, 0, 32);
        Map<String, Integer> byMember =
                answers.stream().collect(Collectors.toMap(Crowd.Answer::memberId, Crowd.Answer::status));
        assertThat(unlisted.stream().map(byMember::get)).as("403 NOT_ELIGIBLE").containsOnly(403);
        assertThat(listed.stream().filter(member -> byMember.get(member) == 202))
                .hasSize(total);
        assertThat(listed.stream().filter(member -> byMember.get(member) == 409))
                .hasSize(10);
        Set<String> accepted =
                listed.stream().filter(member -> byMember.get(member) == 202).collect(Collectors.toSet());
        // live streams read each member on their home shard, whichever primary holds it
        List<String> watched = accepted.stream().sorted().limit(6).toList();
        List<List<Map<String, Object>>> streams = watched.stream()
                .map(member -> Stack.watch(stack.apiUrl(), couponId, member))
                .toList();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) >= total);
        Invariants.check(stack.jdbc, couponId, accepted, DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(total);
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(streams)
                        .as("each stream ends ISSUED")
                        .allSatisfy(stream -> assertThat(stream)
                                .isNotEmpty()
                                .last()
                                .satisfies(status -> assertThat(status).containsEntry("status", "ISSUED"))));
    }

    private static void assertIssued(long couponId, List<String> members) {
        members.forEach(member -> stack.assertIssued(couponId, member));
    }
}
