package com.flashcoupon.api.health;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The {@code kafka} component of {@code /actuator/health} (Spring Boot has no Kafka indicator): UP when the cluster
 * answers a describe within the timeout (asked through the shared {@link KafkaProbe}). Non-blocking, and cached for a few seconds so that probes hitting every
 * instance often do not turn into a stream of admin requests. In the readiness group, not in liveness: restarting the
 * api does not bring a broker back.
 */
@Component("kafka")
class KafkaHealthIndicator implements ReactiveHealthIndicator {

    private static final Duration CACHE_FOR = Duration.ofSeconds(5);

    private final KafkaProbe kafka;
    private final AtomicReference<Cached> last = new AtomicReference<>();

    KafkaHealthIndicator(KafkaProbe kafka) {
        this.kafka = kafka;
    }

    @Override
    public Mono<Health> health() {
        Cached cached = last.get();
        long now = System.nanoTime();
        if (cached != null && now - cached.at() < CACHE_FOR.toNanos()) {
            return Mono.just(cached.health());
        }
        return kafka.nodes()
                .map(nodes -> Health.up().withDetail("nodes", nodes).build())
                .onErrorResume(e -> Mono.just(Health.down()
                        .withDetail("error", e.getClass().getSimpleName())
                        .build()))
                .doOnNext(health -> last.set(new Cached(health, System.nanoTime())));
    }

    private record Cached(Health health, long at) {}
}
