package com.flashcoupon.worker.health;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;

/**
 * The {@code kafka} component of {@code /actuator/health}: DOWN while no broker answers, so that the worker does not
 * report UP through a Kafka outage (Spring Boot has no Kafka indicator of its own). Not part of the liveness group:
 * restarting the worker does not bring a broker back.
 */
@Component("kafka")
class KafkaHealthIndicator extends AbstractHealthIndicator implements DisposableBean {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private final AdminClient admin;

    KafkaHealthIndicator(KafkaAdmin kafkaAdmin) {
        super("Kafka is not reachable");
        this.admin = AdminClient.create(kafkaAdmin.getConfigurationProperties());
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        DescribeClusterResult cluster =
                admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()));
        int nodes =
                cluster.nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS).size();
        builder.up().withDetail("nodes", nodes);
    }

    @Override
    public void destroy() {
        admin.close(Duration.ofSeconds(1));
    }
}
