package com.flashcoupon.worker.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Status;
import org.springframework.kafka.event.ConsumerStoppedEvent;
import org.springframework.kafka.event.ConsumerStoppedEvent.Reason;
import org.springframework.kafka.listener.MessageListenerContainer;

/** When a stopped consumer turns liveness DOWN, and when its container is started again instead. */
class ConsumerSupervisorTest {

    private final AtomicLong clock = new AtomicLong();
    private final ConsumerSupervisor supervisor =
            new ConsumerSupervisor(new SimpleMeterRegistry(), clock::get, Duration.ZERO);
    private final MessageListenerContainer container = container("coupon-issuer");

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
        assertThat(health.getDetails()).containsEntry("stopped", Map.of("coupon-issuer", "ERROR"));
    }

    @Test
    void shouldRestartAFencedConsumersContainerAndTurnDownOnlyPastTheLimit() {
        for (int i = 1; i <= ConsumerSupervisor.MAX_RESTARTS; i++) {
            fenceAndAwaitRestart(container);
            assertThat(supervisor.health(true).getStatus()).as("fence %d", i).isEqualTo(Status.UP);
            verify(container, times(i)).start();
        }

        supervisor.onApplicationEvent(stopped(container, Reason.FENCED));

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.DOWN);
        assertThat(supervisor.restarting("coupon-issuer")).isFalse();
    }

    @Test
    void shouldCountOnlyTheFencesOfTheLastWindow() {
        for (int i = 0; i < ConsumerSupervisor.MAX_RESTARTS; i++) {
            fenceAndAwaitRestart(container);
        }
        clock.addAndGet(ConsumerSupervisor.RESTART_WINDOW.toNanos());

        fenceAndAwaitRestart(container);

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.UP);
    }

    /**
     * With several consumers in one container, Kafka fences one and Spring Kafka stops the others abnormally; before
     * or after the fenced one says why, theirs is the same stop, restarted once.
     */
    @Test
    void shouldTakeTheFencedConsumersSiblingsStopsForPartOfOneRestart() throws Exception {
        // the restart holds in the container's stop until the siblings have spoken
        var siblingsSpoke = new CountDownLatch(1);
        doAnswer(invocation -> siblingsSpoke.await(30, TimeUnit.SECONDS))
                .when(container)
                .stop();

        supervisor.onApplicationEvent(stopped(container, Reason.ABNORMAL));
        supervisor.onApplicationEvent(stopped(container, Reason.FENCED));
        supervisor.onApplicationEvent(stopped(container, Reason.ABNORMAL));
        supervisor.onApplicationEvent(stopped(container, Reason.FENCED));
        siblingsSpoke.countDown();

        await().atMost(Duration.ofSeconds(30)).until(() -> !supervisor.restarting("coupon-issuer"));
        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.UP);
        verify(container, times(1)).start();
    }

    @Test
    void shouldCountEachContainersRestartsApart() {
        for (int i = 0; i < ConsumerSupervisor.MAX_RESTARTS; i++) {
            fenceAndAwaitRestart(container);
        }

        fenceAndAwaitRestart(container("coupon-notifier"));

        assertThat(supervisor.health(true).getStatus()).isEqualTo(Status.UP);
    }

    @Test
    void shouldStartNothingOnceTheApplicationIsClosing() {
        supervisor.closing();

        supervisor.onApplicationEvent(stopped(container, Reason.FENCED));

        verify(container, never()).start();
        assertThat(supervisor.restarting("coupon-issuer")).isFalse();
    }

    private void fenceAndAwaitRestart(MessageListenerContainer fenced) {
        supervisor.onApplicationEvent(stopped(fenced, Reason.FENCED));
        await().atMost(Duration.ofSeconds(30)).until(() -> !supervisor.restarting(fenced.getListenerId()));
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
