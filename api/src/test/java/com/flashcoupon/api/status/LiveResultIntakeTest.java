package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import tools.jackson.databind.json.JsonMapper;

/**
 * Issue 27: every api instance read every result (a consumer group each), so the brokers' fetch grew with results x
 * instances. Three instances' intakes on one broker, six coupons on six partitions: each intake reads the partitions
 * of the coupons it streams only, an instance without a stream reads nothing, and every result a stream waits for
 * arrives, including one written just before its partition was assigned.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class) // the counts of the first need a topic nobody wrote to before
class LiveResultIntakeTest {

    private static final int PARTITIONS = 6;
    private static final int RESULTS_PER_COUPON = 200;
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static EmbeddedKafkaKraftBroker kafka;
    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void start() throws Exception {
        kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.afterPropertiesSet();
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString()))) {
            admin.createTopics(List.of(new NewTopic(Topics.ISSUE_RESULT, PARTITIONS, (short) 1)))
                    .all()
                    .get();
        }
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    @AfterAll
    static void stop() {
        producer.close();
        kafka.destroy();
    }

    /** One instance's intake, streaming {@code coupons}. */
    private record Instance(LiveResultIntake intake, List<IssueResult> results, SimpleMeterRegistry meters) {

        static Instance streaming(String name, Set<Long> coupons) {
            var results = new CopyOnWriteArrayList<IssueResult>();
            var meters = new SimpleMeterRegistry();
            var intake = new LiveResultIntake(
                    Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString()),
                    () -> coupons,
                    value -> JSON.readValue(value, IssueResult.class),
                    results::add,
                    name,
                    meters);
            intake.start();
            return new Instance(intake, results, meters);
        }

        double read() {
            return meters.get("coupon.live.results.read").counter().count();
        }
    }

    /** Six coupon ids, one on each partition. */
    private static List<Long> onePerPartition(long from) {
        List<Long> coupons = new ArrayList<>();
        boolean[] taken = new boolean[PARTITIONS];
        for (long id = from; coupons.size() < PARTITIONS; id++) {
            int partition = LiveResultIntake.partitionOf(id, PARTITIONS);
            if (!taken[partition]) {
                taken[partition] = true;
                coupons.add(id);
            }
        }
        return coupons;
    }

    private static final AtomicLong sequence = new AtomicLong();

    private static void publish(long coupon, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            long n = sequence.incrementAndGet();
            var result =
                    new IssueResult(coupon + ":m" + n, coupon, "m" + n, n, IssueResult.Outcome.ISSUED, n, null, 1L);
            producer.send(
                    new ProducerRecord<>(Topics.ISSUE_RESULT, Topics.key(coupon), JSON.writeValueAsString(result)));
        }
        producer.flush();
    }

    @Test
    @Order(1)
    void shouldReadOnlyThePartitionsOfStreamedCouponsOnEachInstance() throws Exception {
        List<Long> coupons = onePerPartition(1_000);
        long a = coupons.get(0);
        long b = coupons.get(1);
        Instance first = Instance.streaming("first", Set.of(a));
        Instance second = Instance.streaming("second", Set.of(a, b));
        Instance idle = Instance.streaming("idle", Set.of());
        try {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> first.intake().assigned().size() == 1
                            && second.intake().assigned().size() == 2);
            assertThat(first.intake().assigned())
                    .containsExactly(new TopicPartition(Topics.ISSUE_RESULT, LiveResultIntake.partitionOf(a, 6)));

            for (long coupon : coupons) {
                publish(coupon, RESULTS_PER_COUPON);
            }
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> first.results().size() == RESULTS_PER_COUPON
                            && second.results().size() == 2 * RESULTS_PER_COUPON);

            assertThat(first.results()).allMatch(result -> result.couponId() == a);
            assertThat(second.results()).allMatch(result -> result.couponId() == a || result.couponId() == b);
            // what each instance fetched: before, every instance read all 6 x 200 results
            assertThat(first.read()).isEqualTo(RESULTS_PER_COUPON);
            assertThat(second.read()).isEqualTo(2 * RESULTS_PER_COUPON);
            assertThat(idle.read()).isZero();
            assertThat(idle.intake().assigned()).isEmpty();
        } finally {
            first.intake().stop();
            second.intake().stop();
            idle.intake().stop();
        }
    }

    @Test
    @Order(2)
    void shouldDeliverAResultWrittenJustBeforeThePartitionWasAssigned() throws Exception {
        long coupon = onePerPartition(5_000).get(2);
        publish(coupon, 1); // the stream opened, the result came, the intake has not assigned the partition yet
        Instance late = Instance.streaming("late", Set.of(coupon));
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> late.results().size() == 1);
            assertThat(late.results().getFirst().couponId()).isEqualTo(coupon);
        } finally {
            late.intake().stop();
        }
    }
}
