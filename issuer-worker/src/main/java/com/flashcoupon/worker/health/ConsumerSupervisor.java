package com.flashcoupon.worker.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationListener;
import org.springframework.kafka.event.ConsumerStoppedEvent;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * Keeps the worker's Kafka consumers running, and says so in liveness (the {@code consumers} component of
 * {@code /actuator/health}). Spring Kafka ends a consumer for good, while the process and everything else it reports
 * stay up, when Kafka fences its {@code group.instance.id}, on a JVM {@code Error}, or with no committed offset and
 * no reset policy: the worker then consumes nothing, and a static member's partitions go to nobody else.
 *
 * <p>A fenced consumer's listener container is stopped and started again after {@link #RESTART_DELAY} (on this
 * class's own thread: a container is never restarted from its consumer's thread), at most {@link #MAX_RESTARTS}
 * times; its new consumers rejoin under their static ids.
 * Kafka fences a member whose id another member has since claimed (a restarted process, or two workers given the
 * same {@code coupon.worker.instance-id}), and a coordinator that moved to another broker can fence one whose
 * membership it has not yet loaded. Any other abnormal stop, or a fence past the limit (two workers sharing an id
 * fence each other back and forth), turns liveness DOWN so that the orchestrator restarts the worker. Authentication
 * and authorization failures never stop a consumer: they are retried ({@code WorkerProperties.KAFKA_AUTH_RETRY}).
 */
@Component("consumers")
class ConsumerSupervisor extends AbstractHealthIndicator
        implements ApplicationListener<ConsumerStoppedEvent>, DisposableBean {

    static final Duration RESTART_DELAY = Duration.ofSeconds(5);
    static final int MAX_RESTARTS = 5;

    private static final Logger log = LoggerFactory.getLogger(ConsumerSupervisor.class);

    private final Map<String, String> stopped = new TreeMap<>();
    private final Map<String, Integer> restarts = new HashMap<>();
    private final Counter restarted;
    private final ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "consumer-restart");
        thread.setDaemon(true);
        return thread;
    });

    ConsumerSupervisor(MeterRegistry meters) {
        super("A Kafka consumer stopped");
        this.restarted = Counter.builder("coupon.worker.consumer.restarts")
                .description("Kafka consumers started again after Kafka fenced them")
                .register(meters);
    }

    @Override
    public void onApplicationEvent(ConsumerStoppedEvent event) {
        if (event.getReason() == ConsumerStoppedEvent.Reason.NORMAL) {
            return;
        }
        // the listener's container as a whole: Spring Kafka refuses to start a fenced consumer's own (child)
        // container again, and its concurrent parent makes new ones when it starts
        MessageListenerContainer container = event.getContainer(MessageListenerContainer.class);
        String name = container.getListenerId() == null ? container.toString() : container.getListenerId();
        synchronized (this) {
            int done = restarts.getOrDefault(name, 0);
            if (event.getReason() == ConsumerStoppedEvent.Reason.FENCED && done < MAX_RESTARTS) {
                restarts.put(name, done + 1);
                log.warn(
                        "Kafka fenced the consumer of {}: starting it again in {} (restart {} of at most {})",
                        name,
                        RESTART_DELAY,
                        done + 1,
                        MAX_RESTARTS);
                restarter.schedule(() -> restart(container, name), RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS);
                return;
            }
            stopped.put(name, event.getReason().name());
        }
        log.error(
                "the Kafka consumer of {} stopped ({}) and is not started again: liveness is DOWN so that this worker"
                        + " is restarted",
                name,
                event.getReason());
    }

    private void restart(MessageListenerContainer container, String name) {
        try {
            container.stop();
            container.start();
            restarted.increment();
            log.info("the Kafka consumer of {} is started again", name);
        } catch (RuntimeException e) {
            log.error("the Kafka consumer of {} could not be started again: liveness is DOWN", name, e);
            synchronized (this) {
                stopped.put(name, "RESTART_FAILED");
            }
        }
    }

    @Override
    protected synchronized void doHealthCheck(Health.Builder builder) {
        if (stopped.isEmpty()) {
            builder.up();
        } else {
            builder.down().withDetail("stopped", Map.copyOf(stopped));
        }
    }

    @Override
    public void destroy() {
        restarter.shutdownNow();
    }
}
