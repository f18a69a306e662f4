package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.test.web.reactive.server.WebTestClient;
import tools.jackson.databind.json.JsonMapper;

/**
 * The pipeline end to end through HTTP, Redis, Kafka and MySQL, with each run checked against the five invariants of
 * docs/architecture.md in MySQL.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PipelineTest {

    /** Small drain batches so that the order invariant (issuance follows admission up to one batch) means something. */
    private static final int DRAIN_BATCH = 100;

    private static Stack stack;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        stack = new Stack(
                Map.of("coupon.drain.max-batch", DRAIN_BATCH, "coupon.drain.tick", "100ms"),
                Map.of("coupon.worker.max-batch", 500));
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
    void shouldIssueExactlyTheStockToTheFirstComersWhenACrowdAsks() {
        long couponId = stack.createCoupon("Pipeline", 1_000, 5_000);
        List<String> members = Crowd.members("crowd", 3_000);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, members, 2_000, 256);

        assertThat(answers).hasSize(5_000);
        Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
        assertThat(byStatus.keySet())
                .as("statuses %s; no answer: %s", byStatus, Crowd.noAnswers(answers))
                .isSubsetOf(200, 202, 409);
        assertThat(byStatus.get(202)).isEqualTo(1_000);
        Set<String> accepted = acceptedMembers(answers);
        assertThat(accepted).hasSize(1_000);
        answers.stream()
                .filter(answer -> answer.status() == 200)
                .forEach(answer -> assertThat(accepted).contains(answer.memberId()));

        awaitAllDecided(couponId, 1_000);
        Invariants.check(stack.jdbc, couponId, accepted, DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(1_000);

        stack.assertIssued(couponId, accepted.iterator().next());
    }

    @Test
    @Order(2)
    void shouldLoseNothingAndDuplicateNothingWhenTheDrainerCrashesBetweenPublishAndCursorAdvance() {
        long couponId = stack.createCoupon("Pipeline", 200, 2_000);
        Stack.CRASH_ONCE.add(couponId);
        List<String> members = Crowd.members("crash", 200);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, members, 0, 64);

        assertThat(Crowd.countByStatus(answers)).containsEntry(202, 200L);
        awaitAllDecided(couponId, 200);
        assertThat(Stack.CRASH_ONCE).as("the injected crash happened").doesNotContain(couponId);
        Invariants.check(stack.jdbc, couponId, acceptedMembers(answers), DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(200);
    }

    @Test
    @Order(3)
    void shouldWriteNothingNewWhenTheWorkerReplaysEveryBatch() throws Exception {
        long couponId = stack.createCoupon("Pipeline", 300, 5_000);
        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, Crowd.members("replay", 300), 0, 64);
        awaitAllDecided(couponId, 300);
        Map<String, Long> walletsBefore = wallets(couponId);
        long issuedBefore = stack.issuedCount(couponId);

        stack.stopWorker();
        long records = rewindConsumerGroup();
        stack.startWorker();

        assertThat(records).isGreaterThanOrEqualTo(300);
        await().atMost(Duration.ofSeconds(120)).until(() -> consumerLag() == 0);
        assertThat(wallets(couponId)).isEqualTo(walletsBefore);
        assertThat(stack.issuedCount(couponId)).isEqualTo(issuedBefore).isEqualTo(300);
        Invariants.check(stack.jdbc, couponId, acceptedMembers(answers), DRAIN_BATCH);
    }

    /**
     * Security review N5: whoever could publish to {@code coupon.issue.requested} got wallets written, past the queue,
     * the gate and the draw. Requests published straight to Kafka, unsigned or signed with the public local key, get
     * no wallet (nor a failure row), while a member admitted through the api, whose request follows them on the same
     * partition, is issued.
     */
    @Test
    @Order(4)
    void shouldWriteNoWalletForARequestPublishedStraightToKafka() throws Exception {
        long couponId = stack.createCoupon("Forged", 10, 1_000);
        MeterRegistry workerMeters = stack.worker.getBean(MeterRegistry.class);
        double forgedBefore = workerMeters.counter("coupon.worker.forged").count();
        IssueRequested unsigned = new IssueRequested(couponId, "forger-1", 1, System.currentTimeMillis());
        IssueRequested localKey = new IssueRequested(couponId, "forger-2", 2, System.currentTimeMillis());
        try (var producer = new KafkaProducer<String, byte[]>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            // keyed by the event, as the drainer does: the same partition as the real request below, before it
            producer.send(new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(couponId), json(unsigned)))
                    .get(30, TimeUnit.SECONDS);
            var guessed = new ProducerRecord<>(Topics.ISSUE_REQUESTED, Topics.key(couponId), json(localKey));
            guessed.headers()
                    .add(
                            RecordSignature.HEADER,
                            RecordSignature.fromSetting("", true).sign(localKey));
            producer.send(guessed).get(30, TimeUnit.SECONDS);
        }

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, List.of("admitted-1"), 0, 1);

        assertThat(Crowd.countByStatus(answers)).containsEntry(202, 1L);
        awaitAllDecided(couponId, 1);
        await().atMost(Duration.ofSeconds(60))
                .until(() -> workerMeters.counter("coupon.worker.forged").count() - forgedBefore >= 2);
        assertThat(wallets(couponId)).as("wallets").containsOnlyKeys("admitted-1");
        assertThat(stack.failureCount(couponId)).as("failure rows").isZero();
        assertThat(stack.issuedCount(couponId)).isEqualTo(1);
        assertThat(workerMeters.counter("coupon.worker.forged").count() - forgedBefore)
                .isEqualTo(2);
        Invariants.check(stack.jdbc, couponId, Set.of("admitted-1"), DRAIN_BATCH);
    }

    private static byte[] json(IssueRequested request) {
        return JsonMapper.builder().build().writeValueAsBytes(request);
    }

    private static Set<String> acceptedMembers(List<Crowd.Answer> answers) {
        return answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toSet());
    }

    private static void awaitAllDecided(long couponId, int expected) {
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) >= expected);
    }

    private static Map<String, Long> wallets(long couponId) {
        Map<String, Long> wallets = new HashMap<>();
        stack.jdbc
                .sql("SELECT member_id, id FROM coupon_wallet WHERE coupon_id = ?")
                .param(couponId)
                .query(rs -> {
                    wallets.put(rs.getString(1), rs.getLong(2));
                });
        return wallets;
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.getBrokersAsString()));
    }

    /** Moves the worker's group back to the start of the requested topic; returns how many records it will replay. */
    private static long rewindConsumerGroup() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
            long records = 0;
            for (TopicPartition partition : partitions(admin)) {
                start.put(partition, new OffsetAndMetadata(0));
                records += admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .partitionResult(partition)
                        .get()
                        .offset();
            }
            admin.alterConsumerGroupOffsets("coupon-issuer", start).all().get();
            return records;
        }
    }

    private static long consumerLag() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("coupon-issuer")
                    .partitionsToOffsetAndMetadata()
                    .get();
            long lag = 0;
            for (TopicPartition partition : partitions(admin)) {
                long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .partitionResult(partition)
                        .get()
                        .offset();
                OffsetAndMetadata done = committed.get(partition);
                lag += end - (done == null ? 0 : done.offset());
            }
            return lag;
        }
    }

    private static Set<TopicPartition> partitions(Admin admin) throws Exception {
        Set<TopicPartition> partitions = new HashSet<>();
        admin.describeTopics(List.of(Topics.ISSUE_REQUESTED))
                .allTopicNames()
                .get()
                .get(Topics.ISSUE_REQUESTED)
                .partitions()
                .forEach(info -> partitions.add(new TopicPartition(Topics.ISSUE_REQUESTED, info.partition())));
        return partitions;
    }
}
