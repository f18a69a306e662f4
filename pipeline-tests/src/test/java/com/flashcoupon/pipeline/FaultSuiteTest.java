package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The fault suite (issue 11): in each scenario a crowd larger than the stock asks while a fault is injected in the
 * middle of admission or issuance; the stack recovers, issuance settles, and every member told "accepted" ends with a
 * wallet or a failure row, none twice, never beyond the stock, with the five invariants of docs/architecture.md. Each
 * scenario adds its row to {@code target/fault-suite.md} (the table in README.md). One stack of processes for all
 * scenarios, each on an event of its own; every fault is undone before the next one.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FaultSuiteTest {

    private static final int STOCK = 600;
    private static final int CROWD = 1_500;
    /** Slow enough that issuance takes seconds, so the fault lands in its middle. */
    private static final int RATE = 150;

    private static final Duration OUTAGE = Duration.ofSeconds(10);

    /** The longest a recovery may take on a busy two-core machine: an app's restart, the draw, issuance resuming. */
    private static final Duration RECOVERY = Duration.ofMinutes(5);

    /** The longest an app may take to show a fault in its health (its checks time out in seconds). */
    private static final Duration FAULT_SEEN_WITHIN = Duration.ofMinutes(2);

    /** Results a failover loses right after an event settled. */
    private static final int LOST_RESULTS = 100;

    private static FaultStack stack;

    @BeforeAll
    static void start() throws Exception {
        stack = new FaultStack();
    }

    @AfterAll
    static void stop() throws Exception {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    @Order(1)
    void shouldDeadLetterPoisonRecordsAndKeepIssuing() throws Exception {
        long couponId = stack.createCoupon("Poison", STOCK, RATE);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "poison");
        awaitWallets(couponId, 60);

        byte[] notJson = ("not an IssueRequested " + couponId).getBytes(StandardCharsets.UTF_8);
        // signed as the drainer signs: a record from the api that the worker can never write, not a forged one
        IssueRequested unknown = new IssueRequested(987654321, "poison-unknown", 1, System.currentTimeMillis());
        byte[] unknownCoupon = ("{\"couponId\":987654321,\"memberId\":\"poison-unknown\",\"sequence\":1,"
                        + "\"publishedAt\":" + unknown.publishedAt() + "}")
                .getBytes(StandardCharsets.UTF_8);
        var signedUnknown = new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(couponId), unknownCoupon);
        signedUnknown
                .headers()
                .add(
                        RecordSignature.HEADER,
                        RecordSignature.of(Stack.RECORD_SIGNING_KEY).sign(unknown));
        try (var producer = new KafkaProducer<String, byte[]>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.bootstrap(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            // keyed by the event: on the partition of the crowd's own requests, in their middle
            producer.send(new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(couponId), notJson))
                    .get(30, TimeUnit.SECONDS);
            producer.send(signedUnknown).get(30, TimeUnit.SECONDS);
        }
        long injectedAt = System.nanoTime();

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        FaultReport.settleAndCheck(
                stack.jdbc,
                "poison records (not JSON, unknown event)",
                couponId,
                accepted,
                injectedAt,
                "both dead-lettered");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
        assertThat(deadLetters())
                .as("both poison records on the dead-letter topic")
                .contains(
                        new String(notJson, StandardCharsets.UTF_8), new String(unknownCoupon, StandardCharsets.UTF_8));
    }

    @Test
    @Order(2)
    void shouldLoseNothingWhenMysqlIsCutForTenSeconds() throws Exception {
        long couponId = stack.createCoupon("MySQL cut", STOCK, RATE, 3);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "mysql");
        awaitWallets(couponId, 60);

        long cutAt = stack.walletCount(couponId);
        stack.mysql.cut();
        outage(stack.worker, OUTAGE, "MySQL cut");
        long duringCut = stack.walletCount(couponId);
        stack.mysql.restore();
        long restoredAt = System.nanoTime();

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        assertThat(duringCut - cutAt)
                .as("no wallet written while MySQL was unreachable")
                .isLessThanOrEqualTo(FaultStack.DRAIN_BATCH);
        FaultReport.settleAndCheck(stack.jdbc, "MySQL cut 10 s (TCP proxy)", couponId, accepted, restoredAt, "");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    @Test
    @Order(3)
    void shouldLoseNothingWhenKafkaStopsForTenSeconds() throws Exception {
        long couponId = stack.createCoupon("Kafka stop", STOCK, RATE);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "kafka");
        awaitWallets(couponId, 60);

        stack.kafka.kill();
        outage(stack.api, OUTAGE, "Kafka stopped");
        stack.kafka.start();
        long restartedAt = System.nanoTime();

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        FaultReport.settleAndCheck(
                stack.jdbc, "Kafka broker kill -9, back after 10 s", couponId, accepted, restartedAt, "");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    @Test
    @Order(4)
    void shouldLoseNothingWhenRedisIsKilledAndRestartedFromItsAof() throws Exception {
        long couponId = stack.createCoupon("Redis AOF", STOCK, RATE, 3);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "redis");
        awaitWallets(couponId, 60);

        stack.redis.kill();
        outage(stack.api, Duration.ofSeconds(3), "Redis killed");
        stack.redis.start();
        long restartedAt = System.nanoTime();

        List<Crowd.Answer> answers = crowd.get();
        Set<String> accepted = stack.accepted(couponId, answers);
        FaultReport.settleAndCheck(
                stack.jdbc,
                "Redis kill -9 (AOF always), back after 3 s",
                couponId,
                accepted,
                restartedAt,
                Crowd.countByStatus(answers).getOrDefault(503, 0L) + " answered 503 during the outage");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    @Test
    @Order(5)
    void shouldResumeIssuingSoonAndLoseNothingWhenTheWorkerIsKilledMidBatch() throws Exception {
        long couponId = stack.createCoupon("Kill worker", STOCK, RATE);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "worker");
        awaitWallets(couponId, 60);

        stack.worker.kill();
        long atKill = stack.walletCount(couponId);
        long restartedAt = System.nanoTime();
        stack.worker.start();
        long readyAt = 0;
        long deadline = restartedAt + RECOVERY.toNanos();
        while (stack.walletCount(couponId) == atKill && System.nanoTime() < deadline) {
            if (readyAt == 0 && stack.ready(stack.worker)) {
                readyAt = System.nanoTime();
            }
            Thread.sleep(100);
        }
        long firstWalletAt = System.nanoTime();
        assertThat(stack.walletCount(couponId))
                .as("issuance resumed within %s of the worker's restart (see %s)", RECOVERY, stack.worker.log())
                .isGreaterThan(atKill);

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        FaultReport.settleAndCheck(
                stack.jdbc,
                "worker kill -9 mid-batch, restarted",
                couponId,
                accepted,
                restartedAt,
                String.format(
                        Locale.ROOT,
                        "killed at %d wallets; first new wallet %.1f s after the restart, the app's own start included%s",
                        atKill,
                        (firstWalletAt - restartedAt) / 1e9,
                        readyAt == 0
                                ? ""
                                : String.format(
                                        Locale.ROOT, " (%.1f s after it was ready)", (firstWalletAt - readyAt) / 1e9)));
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    @Test
    @Order(6)
    void shouldLoseNothingWhenTheApiIsKilledMidCrowdWithABatchInFlight() throws Exception {
        long couponId = stack.createCoupon("Kill api", STOCK, RATE, 3);
        List<String> members = Crowd.members("api", CROWD);
        // a third of the crowd sent (the last of it in flight), the rest held until the api is dead: they certainly
        // meet no api; the drainer, paced at 150/s, has batches to publish for seconds to come (one in flight every
        // 100 ms tick)
        Crowd.Pause pause = new Crowd.Pause(CROWD / 3);
        CompletableFuture<List<Crowd.Answer>> crowd =
                CompletableFuture.supplyAsync(() -> Crowd.ask(stack.apiUrl(), couponId, members, 0, 32, pause));
        await("the crowd's first third sent")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> pause.holding() || crowd.isDone());
        assertThat(pause.holding()).as("the crowd paused before its end").isTrue();

        stack.api.kill();
        long atKill = stack.walletCount(couponId);
        pause.resume();
        List<Crowd.Answer> answers = crowd.get();
        long restartedAt = System.nanoTime();
        stack.api.start();
        stack.awaitReady(stack.api, RECOVERY);

        Set<String> accepted = stack.accepted(couponId, answers);
        FaultReport.settleAndCheck(
                stack.jdbc,
                "api kill -9 mid-crowd, drainer mid-batch, restarted",
                couponId,
                accepted,
                restartedAt,
                "killed at " + atKill + " wallets; "
                        + Crowd.countByStatus(answers).getOrDefault(Crowd.NO_ANSWER, 0L)
                        + " requests got no answer");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
        assertThat(Crowd.countByStatus(answers.subList(CROWD / 3, CROWD)).keySet())
                .as("the requests sent after the kill")
                .containsOnly(Crowd.NO_ANSWER);
    }

    @Test
    @Order(7)
    void shouldLoseNothingWhenTheWorkerIsKilledWhileMysqlIsCut() throws Exception {
        long couponId = stack.createCoupon("Two faults", STOCK, RATE);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "two");
        awaitWallets(couponId, 60);

        stack.mysql.cut();
        long cutAt = System.nanoTime();
        // killed once the worker has seen the cut, not after a fixed pause that a busy machine may not fill
        outage(stack.worker, Duration.ZERO, "MySQL cut");
        stack.worker.kill();
        // restarted during the outage, as an orchestrator would, and started again whenever it exits (its migrations
        // need MySQL; it waits for a connection up to Hikari's 30 s); MySQL comes back the outage's time after the cut,
        // and
        // not before the restarted worker had 6 s of it
        int starts = 0;
        long restoreAt = Math.max(
                cutAt + OUTAGE.toNanos(),
                System.nanoTime() + Duration.ofSeconds(6).toNanos());
        long restoredAt = 0;
        long deadline = System.nanoTime() + RECOVERY.toNanos();
        while (true) {
            assertThat(System.nanoTime() - deadline)
                    .as(
                            "the worker ready again within %s of its kill, MySQL back (see %s)",
                            RECOVERY, stack.worker.log())
                    .isNegative();
            if (restoredAt == 0 && System.nanoTime() >= restoreAt) {
                stack.mysql.restore();
                restoredAt = System.nanoTime();
            }
            if (!stack.worker.alive()) {
                stack.worker.start();
                starts++;
            }
            if (restoredAt != 0 && stack.ready(stack.worker)) {
                break;
            }
            Thread.sleep(500);
        }

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        FaultReport.settleAndCheck(
                stack.jdbc,
                "worker kill -9 while MySQL is cut 10 s",
                couponId,
                accepted,
                restoredAt,
                "worker started " + starts + " time(s) until MySQL was back");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    /**
     * Redis loses a fair-start event (every key of it) after its draw was made and recorded, with issuance under way:
     * the api restores it from MySQL with its draw made (its window is not closed again), the placed members are
     * issued, and the members the draw left out are told FAILED from MySQL (correctness review F2), none WAITING.
     */
    @Test
    @Order(20)
    void shouldLoseNothingWhenRedisLosesAnEventAfterItsDraw() throws Exception {
        int shards = FaultStack.shards(3);
        Map<?, ?> created = Stack.createCoupon(
                stack.http(),
                Map.of(
                        "name",
                        "Draw then Redis lost",
                        "totalQuantity",
                        STOCK,
                        "openAt",
                        Instant.now()
                                .minusSeconds(5)
                                .truncatedTo(ChronoUnit.SECONDS)
                                .toString(),
                        "issueRatePerSecond",
                        RATE,
                        "queueing",
                        "RANDOMIZED_START",
                        "queueingWindowSeconds",
                        3_600,
                        "stockShards",
                        shards));
        long couponId = ((Number) created.get("id")).longValue();
        List<Crowd.Answer> answers = crowd(couponId, "drawlost").get();
        Set<String> entrants = stack.accepted(couponId, answers);
        Stack.endWindow(stack.jdbc, stack.http(), couponId, RATE);
        awaitRow("SELECT COUNT(*) FROM coupon_draw WHERE coupon_id = ? AND drawn_at IS NOT NULL", couponId);
        awaitWallets(couponId, 60);

        StringRedisTemplate redis = Stack.redisTemplate(stack.redis.url());
        redis.delete(CouponKeys.state(couponId));
        for (int shard = 0; shards > 1 && shard < shards; shard++) {
            // every shard's keys too: Redis lost the event whole
            redis.delete(com.flashcoupon.contract.StockShards.state(
                    com.flashcoupon.contract.StockShards.tag(couponId, shards, shard), shard));
        }
        long lostAt = System.nanoTime();
        Stack.admin(stack.http().get().uri("/admin/v1/coupons/{id}", couponId))
                .exchange()
                .expectStatus()
                .isOk(); // reads the event: Redis gets it back from MySQL

        Set<String> placed = new HashSet<>(stack.jdbc
                .sql("SELECT member_id FROM coupon_draw_entrant WHERE coupon_id = ? AND place IS NOT NULL")
                .param(couponId)
                .query(String.class)
                .list());
        assertThat(redis.opsForHash().get(CouponKeys.meta(couponId), "drawn"))
                .as("restored with its draw made")
                .isEqualTo("1");
        FaultReport.settleAndCheck(
                stack.jdbc,
                "Redis loses a fair-start event after its draw (its keys deleted mid-issuance)",
                couponId,
                placed,
                lostAt,
                String.format(
                        Locale.ROOT,
                        "%,d entrants, %,d placed; the %,d left out told FAILED from MySQL",
                        entrants.size(),
                        placed.size(),
                        entrants.size() - placed.size()));
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, entrants);
    }

    /**
     * The event settles (every member told), then Redis loses its results (a failover to a replica that had not
     * received them): members would read WAITING with their wallet in MySQL. The retirement job repairs settled events
     * too (correctness review F6); the seconds count until every member reads the end again.
     */
    @Test
    @Order(21)
    void shouldTellEveryoneAgainWhenResultsAreLostJustAfterSettling() throws Exception {
        long couponId = stack.createCoupon("Results lost after settling", STOCK, RATE);
        Set<String> accepted =
                stack.accepted(couponId, crowd(couponId, "settled").get());
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);

        awaitRow("SELECT COUNT(*) FROM coupon WHERE id = ? AND settled_at IS NOT NULL", couponId);

        // a failover to a replica that missed the last results: the worker's writes (result and count) are lost
        // together, and its offsets are committed, so no replay writes them again
        StringRedisTemplate redis = Stack.redisTemplate(stack.redis.url());
        List<Object> lost = redis.opsForHash().keys(CouponKeys.result(couponId)).stream()
                .limit(LOST_RESULTS)
                .toList();
        redis.opsForHash().delete(CouponKeys.result(couponId), lost.toArray());
        redis.opsForValue().decrement(CouponKeys.done(couponId), lost.size());
        long lostAt = System.nanoTime();
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
        FaultReport.settleAndCheck(
                stack.jdbc,
                "results lost just after settling (100 results and their count, as a failover loses them)",
                couponId,
                accepted,
                lostAt,
                lost.size() + " results lost after the event settled, put back by the retirement job's repair");
    }

    /**
     * MySQL answers, but every reply is held 8 s (a database at its limit, or the coupon row locked by a long
     * transaction) while a backlog drains: the drain must neither stall nor publish a batch again, and nothing is lost
     * (issue 25, F1).
     */
    @Test
    @Order(8)
    void shouldLoseNothingWhenMysqlHoldsItsRepliesForEightSecondsDuringABacklog() throws Exception {
        long couponId = stack.createCoupon("MySQL slow", STOCK, RATE);
        CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "slow");
        awaitWallets(couponId, 60);

        stack.mysql.holdReplies();
        outage(stack.worker, Duration.ofSeconds(8), "MySQL holding its replies");
        stack.mysql.releaseReplies();
        long releasedAt = System.nanoTime();

        Set<String> accepted = stack.accepted(couponId, crowd.get());
        FaultReport.settleAndCheck(
                stack.jdbc, "MySQL replies held 8 s during a backlog (TCP proxy)", couponId, accepted, releasedAt, "");
        FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
    }

    /**
     * A second api instance that reaches Redis and MySQL but not Kafka runs its drainer through a whole crowd: it must
     * not keep the coupon's lease (issue 25, F5), so the other instance drains it and nothing is lost.
     */
    @Test
    @Order(9)
    void shouldLoseNothingWhenAnApiInstanceIsCutFromKafkaButNotRedis() throws Exception {
        try (ChildJvm cut = stack.startApiCutFromKafka()) {
            long startedAt = System.nanoTime();
            long couponId = stack.createCoupon("Kafka cut for one api", STOCK, RATE, 3);
            CompletableFuture<List<Crowd.Answer>> crowd = crowd(couponId, "cut");

            Set<String> accepted = stack.accepted(couponId, crowd.get());
            FaultReport.settleAndCheck(
                    stack.jdbc,
                    "a second api cut from Kafka, not Redis, draining through the crowd",
                    couponId,
                    accepted,
                    startedAt,
                    "");
            FaultReport.assertEveryoneTold(stack.apiUrl(), couponId, accepted);
        }
    }

    /**
     * Keeps a fault on for at least {@code atLeast} and until {@code app}'s health shows it (an answer other than 200),
     * not for a fixed time: on a busy machine a fixed pause could end before the app even tried the backend, and the
     * scenario would test nothing.
     */
    private static void outage(ChildJvm app, Duration atLeast, String fault) throws InterruptedException {
        long started = System.nanoTime();
        boolean seen = false;
        while (!seen || System.nanoTime() - started < atLeast.toNanos()) {
            seen = seen || !stack.ready(app);
            assertThat(seen || System.nanoTime() - started < FAULT_SEEN_WITHIN.toNanos())
                    .as(
                            "%s shows the fault (%s) in its health within %s (see %s)",
                            app.name(), fault, FAULT_SEEN_WITHIN, app.log())
                    .isTrue();
            Thread.sleep(200);
        }
    }

    private static CompletableFuture<List<Crowd.Answer>> crowd(long couponId, String prefix) {
        List<String> members = Crowd.members(prefix, CROWD);
        return CompletableFuture.supplyAsync(() -> Crowd.ask(stack.apiUrl(), couponId, members, 0, 32));
    }

    /** Waits until {@code countSql} (one parameter: the event's id) counts one row: the draw recorded, the event settled. */
    private static void awaitRow(String countSql, long couponId) {
        await("one row of " + countSql + " for coupon " + couponId)
                .atMost(RECOVERY)
                .pollInterval(Duration.ofMillis(100))
                .until(() -> stack.jdbc
                                .sql(countSql)
                                .param(couponId)
                                .query(Long.class)
                                .single()
                        == 1);
    }

    private static void awaitWallets(long couponId, long count) {
        await(count + " wallets of coupon " + couponId + " (issuance under way before the fault)")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> stack.walletCount(couponId) >= count);
    }

    /** Every value on the dead-letter topic so far, as text. */
    private static Set<String> deadLetters() {
        try (var consumer = new KafkaConsumer<byte[], byte[]>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(Topics.ISSUE_REQUESTED_DEAD_LETTER)
                    .forEach(info -> partitions.add(new TopicPartition(info.topic(), info.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Set<String> values = new HashSet<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline
                    && partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            return values;
        }
    }
}
