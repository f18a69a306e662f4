package com.flashcoupon.contract;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * Issue 27: Spring's KafkaAdmin added partitions to an existing topic whose NewTopic bean asked for more, which moves
 * live coupons to other partitions mid-event. With {@link TopicsLeftAlone} a missing topic is still created, an
 * existing one keeps its partitions.
 */
class TopicsLeftAloneTest {

    private static EmbeddedKafkaKraftBroker kafka;

    @BeforeAll
    static void start() {
        kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.afterPropertiesSet();
    }

    @AfterAll
    static void stop() {
        kafka.destroy();
    }

    @Test
    void shouldCreateMissingTopicsAndNeverAddPartitionsToExistingOnes() throws Exception {
        Map<String, Object> config = Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.getBrokersAsString());
        try (Admin admin = Admin.create(config)) {
            admin.createTopics(List.of(new NewTopic("existing", 1, (short) 1)))
                    .all()
                    .get();
        }
        try (var context = new AnnotationConfigApplicationContext()) {
            context.registerBean(KafkaAdmin.class, () -> new KafkaAdmin(config));
            context.registerBean("existing", NewTopic.class, () -> new NewTopic("existing", 3, (short) 1));
            context.registerBean("missing", NewTopic.class, () -> new NewTopic("missing", 2, (short) 1));
            context.registerBean(TopicsLeftAlone.class, TopicsLeftAlone::new);
            context.refresh();
        }
        try (Admin admin = Admin.create(config)) {
            var topics = admin.describeTopics(List.of("existing", "missing"))
                    .allTopicNames()
                    .get();
            assertThat(topics.get("existing").partitions())
                    .as("an existing topic")
                    .hasSize(1);
            assertThat(topics.get("missing").partitions()).as("a missing topic").hasSize(2);
        }
    }
}
