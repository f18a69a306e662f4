package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.KafkaAccess;
import com.flashcoupon.contract.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline on a Kafka that checks who writes: SASL/SCRAM-SHA-512 only, {@code StandardAuthorizer}, and each app
 * its own user with the ACLs of {@link KafkaAccess} (the api's as {@code COUPON_KAFKA_USER} and friends, through the
 * apps' own configuration). Members are admitted, published and issued; then the worker's user cannot publish an issue
 * request (what the review's forged wallets took), the api's cannot publish a result nor read the requests, and a wrong
 * password is refused.
 */
class KafkaAclTest {

    private static final String API_PASSWORD = "api-kafka-password-for-the-acl-test";
    private static final String WORKER_PASSWORD = "worker-kafka-password-for-the-acl-test";

    private static ScramKafka kafka;
    /** A Redis of the test's own: whatever other stack runs at once, none shares its keys (coupon ids start at 1). */
    private static PrivateRedis redis;

    private static Stack stack;

    @BeforeAll
    static void start() throws Exception {
        redis = new PrivateRedis();
        kafka = new ScramKafka();
        kafka.createTopics(3);
        kafka.addUser(KafkaAccess.API_USER, API_PASSWORD, KafkaAccess.api(KafkaAccess.API_USER));
        kafka.addUser(KafkaAccess.WORKER_USER, WORKER_PASSWORD, KafkaAccess.worker(KafkaAccess.WORKER_USER));
        stack = new Stack(
                settings(KafkaAccess.API_USER, API_PASSWORD),
                settings(KafkaAccess.WORKER_USER, WORKER_PASSWORD),
                kafka.bootstrap());
    }

    /** What a deployment sets: the variables the apps' yml files read. */
    private static Map<String, Object> settings(String user, String password) {
        return Map.of(
                "spring.data.redis.url",
                redis.url(),
                "COUPON_KAFKA_SECURITY_PROTOCOL",
                "SASL_PLAINTEXT",
                "COUPON_KAFKA_USER",
                user,
                "COUPON_KAFKA_PASSWORD",
                password,
                "COUPON_KAFKA_CREATE_TOPICS",
                "false");
    }

    @AfterAll
    static void stop() throws Exception {
        if (stack != null) {
            stack.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void shouldIssueWithEachAppAsItsOwnUserAndRefuseEachTheOthersTopics() {
        long couponId = stack.createCoupon("Kafka ACL", 50, 1_000);
        List<String> members = Crowd.members("kafka-acl", 80);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, members, 0, 16);

        assertThat(Crowd.countByStatus(answers)).containsEntry(202, 50L);
        // the api published each request as coupon-api, the worker read it and wrote the wallet as coupon-worker
        await().atMost(Duration.ofSeconds(90))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) == 50);

        // each app's own Kafka check (an admin client as its user) finds the broker
        for (String app : List.of(stack.apiUrl(), Stack.urlOf(stack.worker))) {
            org.springframework.test.web.reactive.server.WebTestClient.bindToServer()
                    .baseUrl(app)
                    .build()
                    .get()
                    .uri("/actuator/health/backends")
                    .exchange()
                    .expectStatus()
                    .isOk();
        }

        assertThatThrownBy(() -> publish(KafkaAccess.WORKER_USER, WORKER_PASSWORD, Topics.ISSUE_REQUESTED))
                .hasStackTraceContaining("TopicAuthorizationException");
        assertThatThrownBy(() -> publish(KafkaAccess.API_USER, API_PASSWORD, Topics.ISSUE_RESULT))
                .hasStackTraceContaining("TopicAuthorizationException");
        assertThatThrownBy(() -> read(KafkaAccess.API_USER, API_PASSWORD, Topics.ISSUE_REQUESTED))
                .hasStackTraceContaining("TopicAuthorizationException");
        assertThatThrownBy(() -> publish(KafkaAccess.WORKER_USER, API_PASSWORD, Topics.ISSUE_RESULT))
                .hasStackTraceContaining("SaslAuthenticationException");
    }

    private static void publish(String user, String password, String topic) throws Exception {
        Map<String, Object> config = new HashMap<>(kafka.client(user, password));
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000);
        try (var producer = new KafkaProducer<String, String>(config)) {
            producer.send(new ProducerRecord<>(topic, "1", "{}")).get();
        }
    }

    private static void read(String user, String password, String topic) {
        Map<String, Object> config = new HashMap<>(kafka.client(user, password));
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        try (var consumer = new KafkaConsumer<String, String>(config)) {
            consumer.assign(List.of(new TopicPartition(topic, 0)));
            consumer.seekToBeginning(List.of(new TopicPartition(topic, 0)));
            consumer.poll(Duration.ofSeconds(10));
        }
    }
}
