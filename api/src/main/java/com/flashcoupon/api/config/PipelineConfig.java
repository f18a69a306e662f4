package com.flashcoupon.api.config;

import com.flashcoupon.contract.Topics;
import java.time.Clock;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The topics the api uses, created when missing (the drainer publishes requests, every instance's live listener reads
 * results), and the clock everything reads. The worker creates the same topics with the same settings: whichever
 * starts first creates them.
 */
@Configuration(proxyBeanMethods = false)
class PipelineConfig {

    @Bean
    NewTopic issueRequestedTopic(ApiProperties properties) {
        return topic(Topics.ISSUE_REQUESTED, properties.kafka());
    }

    @Bean
    NewTopic issueResultTopic(ApiProperties properties) {
        return topic(Topics.ISSUE_RESULT, properties.kafka());
    }

    private static NewTopic topic(String name, ApiProperties.Kafka kafka) {
        return TopicBuilder.name(name)
                .partitions(kafka.topicPartitions())
                .replicas(kafka.replicationFactor())
                .configs(Topics.configs(kafka.replicationFactor()))
                .build();
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
