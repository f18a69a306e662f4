package com.flashcoupon.worker.config;

import com.flashcoupon.contract.Topics;
import com.flashcoupon.contract.TopicsLeftAlone;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The worker creates the pipeline's missing topics at start (Spring's KafkaAdmin does it before any listener container
 * starts), so a new consumer group never misses the first records. Existing topics are left as they are, partitions
 * included ({@link TopicsLeftAlone}); {@code COUPON_KAFKA_CREATE_TOPICS=false} creates nothing, for a platform that
 * owns the topics.
 */
@Configuration(proxyBeanMethods = false)
class TopicsConfig {

    /** Static: a post-processor is created before the other beans of this class. */
    @Bean
    static TopicsLeftAlone topicsLeftAlone() {
        return new TopicsLeftAlone();
    }

    @Bean
    NewTopic issueRequestedTopic(WorkerProperties worker) {
        return topic(Topics.ISSUE_REQUESTED, worker);
    }

    @Bean
    NewTopic issueResultTopic(WorkerProperties worker) {
        return topic(Topics.ISSUE_RESULT, worker);
    }

    @Bean
    NewTopic issueRequestedDeadLetterTopic(WorkerProperties worker) {
        return topic(Topics.ISSUE_REQUESTED_DEAD_LETTER, worker);
    }

    private static NewTopic topic(String name, WorkerProperties worker) {
        return TopicBuilder.name(name)
                .partitions(worker.topicPartitions())
                .replicas(worker.topicReplicationFactor())
                .configs(Topics.configs(worker.topicReplicationFactor()))
                .build();
    }
}
