package com.flashcoupon.api.config;

import com.flashcoupon.contract.Topics;
import java.time.Clock;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;

/** The topic the drainer publishes to (created when missing) and the clock everything reads. */
@Configuration(proxyBeanMethods = false)
class PipelineConfig {

    @Bean
    NewTopic issueRequestedTopic(ApiProperties properties) {
        return TopicBuilder.name(Topics.ISSUE_REQUESTED)
                .partitions(properties.kafka().topicPartitions())
                .replicas(1)
                .build();
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
