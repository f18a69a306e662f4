package com.flashcoupon.api.health;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The api's one Kafka admin client for asking whether the cluster answers, used by {@link BackendWatch} only (fail
 * closed while Kafka is down; {@link KafkaHealthIndicator} reads its answer), so one instance keeps one probing
 * connection.
 */
@Component
class KafkaProbe implements DisposableBean {

    static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final Admin admin;

    KafkaProbe(KafkaAdmin kafkaAdmin) {
        Map<String, Object> config = new HashMap<>(kafkaAdmin.getConfigurationProperties());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "coupon-api-kafka-probe");
        this.admin = Admin.create(config);
    }

    /** The number of brokers the cluster describes, without blocking; an error when it does not answer in time. */
    Mono<Integer> nodes() {
        return Mono.fromCompletionStage(
                        () -> admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()))
                                .nodes()
                                .toCompletionStage())
                .timeout(TIMEOUT)
                .map(nodes -> nodes.size());
    }

    @Override
    public void destroy() {
        admin.close(Duration.ofSeconds(1));
    }
}
