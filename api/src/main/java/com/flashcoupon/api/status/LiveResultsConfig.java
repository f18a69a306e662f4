package com.flashcoupon.api.status;

import com.flashcoupon.contract.IssueResult;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The results live streams wait for: each instance reads the result topic's partitions of the coupons it streams, and
 * only those ({@link LiveResultIntake}; before issue 27 every instance read every result in a group of its own).
 * Chosen over Redis pub/sub because the results are already in Kafka, durable and ordered per coupon; a gap (a
 * partition assigned after the result, a broker outage) is covered by the hub's Redis fallback. The intake starts
 * before the web server, so streams are served with it running.
 */
@Configuration(proxyBeanMethods = false)
class LiveResultsConfig {

    private static final JsonMapper JSON = JsonMapper.builder()
            .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .build();

    @Bean
    LiveResultIntake liveResultIntake(KafkaProperties kafka, LiveStatusHub hub, MeterRegistry meters) {
        return new LiveResultIntake(
                kafka.buildConsumerProperties(),
                hub::streamedCoupons,
                value -> JSON.readValue(value, IssueResult.class),
                hub::onResult,
                "live-results",
                meters);
    }
}
