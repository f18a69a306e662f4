package com.flashcoupon.contract;

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
import org.springframework.kafka.core.KafkaAdmin;

/**
 * Keeps Spring's {@link KafkaAdmin} to creating the topics that are missing, in the api and the worker alike (each
 * registers one as a static bean). On its own KafkaAdmin also adds partitions to an existing topic that has fewer than
 * the {@code NewTopic} bean says, so a rollout with a larger partition setting ({@code COUPON_KAFKA_PARTITIONS},
 * {@code COUPON_WORKER_TOPIC_PARTITIONS}) would move coupons to other partitions in the middle of an event (records
 * are keyed by coupon, and a coupon's order is its partition's). An existing topic is left as it is; a partition count
 * that differs from the setting is logged. {@code COUPON_KAFKA_CREATE_TOPICS=false} turns creation off altogether, for
 * a platform that owns the topics.
 */
public final class TopicsLeftAlone implements BeanPostProcessor {

    private static final Logger log = LoggerFactory.getLogger(TopicsLeftAlone.class);

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof KafkaAdmin admin) {
            admin.setCreateOrModifyTopic(missingOnly(admin.getConfigurationProperties(), admin.getOperationTimeout()));
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
