package com.flashcoupon.api.health;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.ReactiveHealthIndicator;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The {@code kafka} component of {@code /actuator/health} (Spring Boot has no Kafka indicator): what {@link
 * BackendWatch}'s last probe found, the same answer admission acts on, so readiness and the 503s agree and change
 * together (within 2.5 s of an outage). Reading it costs nothing, however often probes hit every instance. In the
 * readiness group, not in liveness: restarting the api does not bring a broker back.
 */
@Component("kafka")
class KafkaHealthIndicator implements ReactiveHealthIndicator {

    private final BackendWatch watch;

    KafkaHealthIndicator(BackendWatch watch) {
        this.watch = watch;
    }

    @Override
    public Mono<Health> health() {
        return Mono.just(
                watch.kafkaAnswers() ? Health.up().build() : Health.down().build());
    }
}
