package com.flashcoupon.api.redemption;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.contract.Topics;
import org.apache.kafka.clients.admin.NewTopic;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * The topic of wallet changes, created when missing, and the threads of the relay, the jobs and the gauges: their own, so that a
 * relay waiting for Kafka's acknowledgement never holds up the api's other jobs, nor they it.
 */
@Configuration(proxyBeanMethods = false)
class RedemptionConfig {

    @Bean
    NewTopic walletChangedTopic(ApiProperties properties) {
        return TopicBuilder.name(Topics.WALLET_CHANGED)
                .partitions(properties.kafka().topicPartitions())
                .replicas(properties.kafka().replicationFactor())
                .configs(Topics.configs(properties.kafka().replicationFactor()))
                .build();
    }

    @Bean
    ThreadPoolTaskScheduler redemptionScheduler() {
        var scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(3);
        scheduler.setThreadNamePrefix("redeem-");
        return scheduler;
    }
}
