package com.flashcoupon.api.health;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.AdminClient;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The {@code kafka} component of {@code /actuator/health} (Spring Boot has no Kafka indicator): UP when the cluster
 * answers a describe within the timeout. Non-blocking, and cached for a few seconds so that probes hitting every
 * instance often do not turn into a stream of admin requests. In the readiness group, not in liveness: restarting the
 * api does not bring a broker back.
 */
@Component("kafka")
class KafkaHealthIndicator implements ReactiveHealthIndicator, DisposableBean {

    private static final Duration TIMEOUT = Duration.ofSeconds(3);
    private static final Duration CACHE_FOR = Duration.ofSeconds(5);

    private final AdminClient admin;
    private final AtomicReference<Cached> last = new AtomicReference<>();

    KafkaHealthIndicator(KafkaAdmin kafkaAdmin) {
        this.admin = AdminClient.create(kafkaAdmin.getConfigurationProperties());
    }

    @Override
    public Mono<Health> health() {
        Cached cached = last.get();
        long now = System.nanoTime();
        if (cached != null && now - cached.at() < CACHE_FOR.toNanos()) {
            return Mono.just(cached.health());
        }
        return Mono.fromCompletionStage(
                        () -> admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()))
                                .nodes()
                                .toCompletionStage())
                .timeout(TIMEOUT)
                .map(nodes -> Health.up().withDetail("nodes", nodes.size()).build())
                .onErrorResume(e -> Mono.just(Health.down()
                        .withDetail("error", e.getClass().getSimpleName())
                        .build()))
                .doOnNext(health -> last.set(new Cached(health, System.nanoTime())));
    }

    @Override
    public void destroy() {
        admin.close(Duration.ofSeconds(1));
    }

    private record Cached(Health health, long at) {}
}
