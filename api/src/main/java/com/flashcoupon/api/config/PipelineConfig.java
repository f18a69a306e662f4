package com.flashcoupon.api.config;

import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.contract.TopicsLeftAlone;
import java.time.Clock;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.config.TopicBuilder;

/**
 * The topics the api uses, created when missing (the drainer publishes requests, the live listener reads results),
 * and the clock everything reads. The worker creates the same topics with the same settings: whichever starts first
 * creates them. An existing topic is never changed ({@link TopicsLeftAlone}); {@code COUPON_KAFKA_CREATE_TOPICS=false}
 * creates nothing, for a platform that owns the topics.
 */
@Configuration(proxyBeanMethods = false)
class PipelineConfig {

    /** Static: a post-processor is created before the other beans of this class. */
    @Bean
    static TopicsLeftAlone topicsLeftAlone() {
        return new TopicsLeftAlone();
    }

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

    /**
     * The key the drainer signs each issue request with, shared with the worker ({@link RecordSignature}): outside the
     * local profile a missing key, or the public local one, stops the api at start, rather than an api whose every
     * record the worker dead-letters.
     */
    @Bean
    RecordSignature recordSignature(
            @Value("${coupon.record.signing-key:}") String signingKey, Environment environment) {
        return RecordSignature.fromSetting(signingKey, environment.matchesProfiles("local"));
    }

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }
}
