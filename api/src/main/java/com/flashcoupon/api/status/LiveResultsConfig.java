package com.flashcoupon.api.status;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ConcurrentMessageListenerContainer;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.MessageListener;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every api instance reads every result: its own consumer group (a random suffix per start), from the latest offset,
 * committing nothing, so no group outlives the instance and no instance steals another's results. Chosen over Redis
 * pub/sub because the results are already in Kafka, durable and ordered per coupon; a gap (the listener not yet
 * assigned at start, a broker outage) is covered by the hub's Redis fallback. The container starts before the web
 * server, so streams are served with the listener subscribed.
 */
@Configuration(proxyBeanMethods = false)
class LiveResultsConfig {

    private static final Logger log = LoggerFactory.getLogger(LiveResultsConfig.class);
    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    @Bean
    ConcurrentMessageListenerContainer<String, String> liveResultsContainer(
            KafkaProperties kafka, LiveProperties live, LiveStatusHub hub) {
        Map<String, Object> config = new HashMap<>(kafka.buildConsumerProperties());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, live.groupPrefix() + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        var properties = new ContainerProperties(Topics.ISSUE_RESULT);
        properties.setAckMode(ContainerProperties.AckMode.MANUAL);
        properties.setMessageListener((MessageListener<String, String>) record -> {
            try {
                hub.onResult(JSON.readValue(record.value(), IssueResult.class));
            } catch (RuntimeException e) {
                log.warn(
                        "unreadable result at {}-{}@{}: {}",
                        record.topic(),
                        record.partition(),
                        record.offset(),
                        e.toString());
            }
        });
        var container = new ConcurrentMessageListenerContainer<>(
                new DefaultKafkaConsumerFactory<String, String>(config), properties);
        container.setBeanName("liveResults");
        // before the web server (Spring Boot starts it at DEFAULT_PHASE - 2048)
        container.setPhase(SmartLifecycle.DEFAULT_PHASE - 4096);
        return container;
    }
}
