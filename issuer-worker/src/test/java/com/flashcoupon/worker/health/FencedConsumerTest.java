package com.flashcoupon.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.Topics;
import com.flashcoupon.worker.support.Pipeline;
import com.flashcoupon.worker.support.PipelineTestSupport;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * A worker whose consumer Kafka fenced goes on issuing. Another member joins the group under the worker's static id
 * (as a coordinator that lost the latest membership, or a second process given the same
 * {@code coupon.worker.instance-id}, would have it), Kafka fences the worker's consumer and Spring Kafka ends it for
 * good; {@link ConsumerSupervisor} starts it again, it takes its id back, and the next request is issued. Without
 * the supervisor that worker consumed nothing from then on and still answered UP everywhere.
 */
@TestPropertySource(properties = "coupon.worker.instance-id=fence-test")
class FencedConsumerTest extends PipelineTestSupport {

    @LocalServerPort
    int port;

    @Value("${spring.embedded.kafka.brokers}")
    String brokers;

    @Autowired
    MeterRegistry meters;

    @Test
    void shouldStartTheConsumerAgainAndIssueWhenKafkaFencedIt() throws Exception {
        // the worker's consumer is in the group, and works, before the other member comes
        long before = pipeline.newCoupon(1);
        pipeline.publish(Pipeline.requests(before, 1, 1));
        awaitResults(before, 1);

        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                brokers,
                ConsumerConfig.GROUP_ID_CONFIG,
                "coupon-issuer",
                // Spring Kafka gives the worker's first consumer the suffix -0
                ConsumerConfig.GROUP_INSTANCE_ID_CONFIG,
                "fence-test-0",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class);
        try (var other = new KafkaConsumer<String, String>(config)) {
            other.subscribe(List.of(Topics.ISSUE_REQUESTED));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                other.poll(Duration.ofMillis(200));
                return !other.assignment().isEmpty();
            });
        } // a static member's close does not leave the group: its partitions wait for whoever claims the id

        await().atMost(Duration.ofSeconds(60)).until(() -> restarts() >= 1);
        long after = pipeline.newCoupon(1);
        pipeline.publish(Pipeline.requests(after, 1, 1));
        awaitResults(after, 1);
        assertThat(liveness().statusCode())
                .as("liveness once the consumer runs again")
                .isEqualTo(200);
    }

    private double restarts() {
        var counter = meters.find("coupon.worker.consumer.restarts").counter();
        return counter == null ? 0 : counter.count();
    }

    private HttpResponse<String> liveness() throws Exception {
        try (HttpClient client = HttpClient.newHttpClient()) {
            return client.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/liveness"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }
    }
}
