package com.flashcoupon.worker.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.Topics;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The worker's topics as it asks Kafka to create them: replicas, and the in-sync replicas a write needs. */
class TopicsConfigTest {

    @Test
    void shouldCreateEveryTopicWithTheReplicationFactorAndOneInSyncReplicaLess() {
        WorkerProperties worker = new Binder(
                        new MapConfigurationPropertySource(Map.of("coupon.worker.topic-replication-factor", "3")))
                .bindOrCreate("coupon.worker", WorkerProperties.class);
        var config = new TopicsConfig();

        List<NewTopic> topics = List.of(
                config.issueRequestedTopic(worker),
                config.issueResultTopic(worker),
                config.issueRequestedDeadLetterTopic(worker));

        assertThat(topics)
                .extracting(NewTopic::name)
                .containsExactly(Topics.ISSUE_REQUESTED, Topics.ISSUE_RESULT, Topics.ISSUE_REQUESTED_DEAD_LETTER);
        assertThat(topics).allSatisfy(topic -> {
            assertThat(topic.replicationFactor()).isEqualTo((short) 3);
            assertThat(topic.configs()).containsEntry("min.insync.replicas", "2");
        });
    }
}
