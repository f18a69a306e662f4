package com.flashcoupon.api.config;

import com.flashcoupon.contract.Topics;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.config.TopicBuilder;
import org.springframework.kafka.core.KafkaAdmin;

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

    @Bean
    Clock clock() {
        return Clock.systemUTC();
    }

    /**
     * Keeps Spring's {@link KafkaAdmin} to creating the topics that are missing. On its own it also adds partitions to
     * an existing topic that has fewer than the {@code NewTopic} bean says, so a rollout with a larger
     * {@code COUPON_KAFKA_PARTITIONS} would move coupons to other partitions in the middle of an event (records are keyed
     * by coupon, and a coupon's order is its partition's). An existing topic is left as it is; a partition count that
     * differs from the setting is logged. {@code COUPON_KAFKA_CREATE_TOPICS=false} turns creation off altogether, for a
     * platform that owns the topics.
     */
    static final class TopicsLeftAlone implements BeanPostProcessor {

        private static final Logger log = LoggerFactory.getLogger(TopicsLeftAlone.class);

        @Override
        public Object postProcessAfterInitialization(Object bean, String beanName) {
            if (bean instanceof KafkaAdmin admin) {
                admin.setCreateOrModifyTopic(
                        missingOnly(admin.getConfigurationProperties(), admin.getOperationTimeout()));
            }
            return bean;
        }

        /** True only for a topic the brokers do not have; false when it exists or the brokers cannot say. */
        static Predicate<NewTopic> missingOnly(Map<String, Object> adminConfig, int timeoutSeconds) {
            return topic -> {
                try (Admin client = Admin.create(adminConfig)) {
                    TopicDescription existing = client.describeTopics(List.of(topic.name()))
                            .allTopicNames()
                            .get(timeoutSeconds, TimeUnit.SECONDS)
                            .get(topic.name());
                    int partitions = existing.partitions().size();
                    if (topic.numPartitions() > 0 && partitions != topic.numPartitions()) {
                        log.warn(
                                "topic {} has {} partitions, the setting says {}: left as it is (adding partitions moves"
                                        + " coupons to other partitions; see docs/operations.md)",
                                topic.name(),
                                partitions,
                                topic.numPartitions());
                    }
                    return false;
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                        return true;
                    }
                    log.warn(
                            "topic {} not checked, so not created: {}",
                            topic.name(),
                            e.getCause().toString());
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                } catch (Exception e) {
                    log.warn("topic {} not checked, so not created: {}", topic.name(), e.toString());
                    return false;
                }
            };
        }
    }
}
