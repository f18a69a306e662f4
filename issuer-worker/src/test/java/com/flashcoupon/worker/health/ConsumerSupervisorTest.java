package com.flashcoupon.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.kafka.event.ConsumerStoppedEvent;
import org.springframework.kafka.event.ConsumerStoppedEvent.Reason;
import org.springframework.kafka.listener.MessageListenerContainer;

/** When a stopped consumer turns liveness DOWN, and when it is started again instead. */
class ConsumerSupervisorTest {

    private final ConsumerSupervisor supervisor = new ConsumerSupervisor(new SimpleMeterRegistry());
    private final MessageListenerContainer container = container("coupon-issuer-0");

    @AfterEach
    void stop() {
        supervisor.destroy();
    }

    @Test
    void shouldStayUpWhenConsumersStopNormally() {
        supervisor.onApplicationEvent(stopped(container, Reason.NORMAL));

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void shouldTurnDownWhenAConsumerStopsOnAnError() {
        supervisor.onApplicationEvent(stopped(container, Reason.ERROR));

        var health = supervisor.health(true);
        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("stopped", java.util.Map.of("coupon-issuer-0", "ERROR"));
    }

    @Test
    void shouldRestartAFencedConsumerAndTurnDownOnlyPastTheLimit() {
        for (int i = 0; i < ConsumerSupervisor.MAX_RESTARTS; i++) {
            supervisor.onApplicationEvent(stopped(container, Reason.FENCED));
            assertThat(supervisor.health(true).getStatus())
                    .as("fence %d", i + 1)
                    .isEqualTo(Status.UP);
        }

        supervisor.onApplicationEvent(stopped(container, Reason.FENCED));

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.DOWN);
    }

    @Test
    void shouldCountEachConsumersRestartsApart() {
        for (int i = 0; i < ConsumerSupervisor.MAX_RESTARTS; i++) {
            supervisor.onApplicationEvent(stopped(container, Reason.FENCED));
        }

        supervisor.onApplicationEvent(stopped(container("coupon-issuer-1"), Reason.FENCED));

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.UP);
    }

    private static MessageListenerContainer container(String id) {
        MessageListenerContainer container = mock(MessageListenerContainer.class);
        when(container.getListenerId()).thenReturn(id);
        return container;
    }

    private static ConsumerStoppedEvent stopped(MessageListenerContainer container, Reason reason) {
        return new ConsumerStoppedEvent(container, container, reason);
    }
}
