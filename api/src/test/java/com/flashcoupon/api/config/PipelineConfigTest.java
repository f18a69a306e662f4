package com.flashcoupon.api.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.Topics;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

/** The api's topics as it asks Kafka to create them: partitions, replicas and the in-sync replicas a write needs. */
class PipelineConfigTest {

    @Test
    void shouldCreateBothTopicsWithTheReplicationFactorAndOneInSyncReplicaLess() {
        ApiProperties properties = new Binder(new MapConfigurationPropertySource(
                        Map.of("coupon.kafka.replication-factor", "3", "coupon.kafka.topic-partitions", "6")))
                .bindOrCreate("coupon", ApiProperties.class);
        var config = new PipelineConfig();

        for (NewTopic topic :
                new NewTopic[] {config.issueRequestedTopic(properties), config.issueResultTopic(properties)}) {
            assertThat(topic.name()).isIn(Topics.ISSUE_REQUESTED, Topics.ISSUE_RESULT);
            assertThat(topic.numPartitions()).isEqualTo(6);
            assertThat(topic.replicationFactor()).isEqualTo((short) 3);
            assertThat(topic.configs()).containsEntry("min.insync.replicas", "2");
        }
    }

    @Test
    void shouldKeepOneReplicaByDefaultForALocalBroker() {
        ApiProperties properties =
                new Binder(new MapConfigurationPropertySource(Map.of())).bindOrCreate("coupon", ApiProperties.class);

        NewTopic topic = new PipelineConfig().issueRequestedTopic(properties);

        assertThat(topic.replicationFactor()).isEqualTo((short) 1);
        assertThat(topic.configs()).containsEntry("min.insync.replicas", "1");
    }
}
