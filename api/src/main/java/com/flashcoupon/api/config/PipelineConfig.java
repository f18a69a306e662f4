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
        return TopicBuilder.name(Topics.ISSUE_REQUESTED)
                .partitions(properties.kafka().topicPartitions())
                .replicas(properties.kafka().replicationFactor())
                .configs(Topics.configs(properties.kafka().replicationFactor()))
                .build();
    }

    @Bean
    NewTopic issueResultTopic(ApiProperties properties) {
        return TopicBuilder.name(Topics.ISSUE_RESULT)
                .partitions(properties.kafka().topicPartitions())
                .replicas(properties.kafka().replicationFactor())
                .configs(Topics.configs(properties.kafka().replicationFactor()))
                .build();
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
