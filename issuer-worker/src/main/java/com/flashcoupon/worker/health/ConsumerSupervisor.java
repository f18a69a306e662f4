package com.flashcoupon.worker.health;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.kafka.event.ConsumerStoppedEvent;
import org.springframework.kafka.listener.MessageListenerContainer;
import org.springframework.stereotype.Component;

/**
 * Keeps the worker's Kafka consumers running, and says so in liveness (the {@code consumers} component of
 * {@code /actuator/health}). Spring Kafka ends a consumer for good, while the process and everything else it reports
 * stay up, when Kafka fences its {@code group.instance.id}, on a JVM {@code Error}, or with no committed offset and
 * no reset policy: the worker then consumes nothing, and a static member's partitions go to nobody else.
 *
 * <p>A fenced consumer's listener container (the concurrent parent: Spring Kafka refuses to start a fenced child
 * again, and stops the fenced consumer's siblings with it) is stopped and started again after {@link #RESTART_DELAY},
 * on this class's own thread (a container is never restarted from its consumer's thread), its new consumers rejoining
 * under their static ids; at most {@link #MAX_RESTARTS} times in any {@link #RESTART_WINDOW}. The siblings' own
 * (abnormal) stops and further fences of the same container are part of that one restart. Kafka fences a member
 * whose id another member has since claimed (a restarted process, or two workers given the same
 * {@code coupon.worker.instance-id}), and a coordinator that moved to another broker can fence one whose membership it
 * has not yet loaded. Any other abnormal stop, or fences past the limit (two workers sharing an id fence each other
 * back and forth), turn liveness DOWN so that the orchestrator restarts the worker. Nothing is restarted once the
 * application is closing. Authentication and authorization failures never stop a consumer: they are retried
 * ({@code WorkerProperties.KAFKA_AUTH_RETRY}).
 */
@Component("consumers")
class ConsumerSupervisor extends AbstractHealthIndicator
        implements ApplicationListener<ConsumerStoppedEvent>, DisposableBean {

    static final Duration RESTART_DELAY = Duration.ofSeconds(5);
    static final int MAX_RESTARTS = 5;
    static final Duration RESTART_WINDOW = Duration.ofMinutes(10);

    private static final Logger log = LoggerFactory.getLogger(ConsumerSupervisor.class);

    private final LongSupplier nanoTime;
    private final Duration restartDelay;
    private final Counter restarted;
    private final ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "consumer-restart");
        thread.setDaemon(true);
        return thread;
    });

    // guarded by this
    private final Map<String, String> stopped = new TreeMap<>();
    private final Set<String> restarting = new HashSet<>();
    private final Map<String, Deque<Long>> restarts = new HashMap<>();
    private boolean closing;

    @Autowired
    ConsumerSupervisor(MeterRegistry meters) {
        this(meters, System::nanoTime, RESTART_DELAY);
    }

    /** With another clock and delay, for tests. */
    ConsumerSupervisor(MeterRegistry meters, LongSupplier nanoTime, Duration restartDelay) {
        super("A Kafka consumer stopped");
        this.nanoTime = nanoTime;
        this.restartDelay = restartDelay;
        this.restarted = Counter.builder("coupon.worker.consumer.restarts")
                .description("Kafka listener containers started again after Kafka fenced a consumer")
                .register(meters);
    }

    @Override
    public void onApplicationEvent(ConsumerStoppedEvent event) {
        if (event.getReason() == ConsumerStoppedEvent.Reason.NORMAL) {
            return;
        }
        MessageListenerContainer container = event.getContainer(MessageListenerContainer.class);
        String name = container.getListenerId() == null ? container.toString() : container.getListenerId();
        synchronized (this) {
            if (closing || restarting.contains(name)) {
                return; // shutting down, or a sibling of the consumer whose fence is being dealt with
            }
            if (event.getReason() == ConsumerStoppedEvent.Reason.FENCED) {
                Deque<Long> recent = restarts.computeIfAbsent(name, key -> new ArrayDeque<>());
                long now = nanoTime.getAsLong();
                while (!recent.isEmpty() && now - recent.peekFirst() >= RESTART_WINDOW.toNanos()) {
                    recent.pollFirst();
                }
                if (recent.size() < MAX_RESTARTS) {
                    recent.addLast(now);
                    restarting.add(name);
                    // a sibling stopped abnormally just before the fenced consumer said why: the same stop
                    stopped.remove(name);
                    log.warn(
                            "Kafka fenced a consumer of {}: starting its container again in {} (restart {} of at most"
                                    + " {} in {})",
                            name,
                            restartDelay,
                            recent.size(),
                            MAX_RESTARTS,
                            RESTART_WINDOW);
                    restarter.schedule(() -> restart(container, name), restartDelay.toMillis(), TimeUnit.MILLISECONDS);
                    return;
                }
            }
            stopped.put(name, event.getReason().name());
        }
        log.error(
                "a Kafka consumer of {} stopped ({}) and is not started again: liveness is DOWN so that this worker"
                        + " is restarted",
                name,
                event.getReason());
    }

    private void restart(MessageListenerContainer container, String name) {
        synchronized (this) {
            if (closing) {
                return;
            }
        }
        try {
            container.stop();
            container.start();
            restarted.increment();
            log.info("the Kafka consumers of {} are started again", name);
        } catch (RuntimeException e) {
            log.error("the Kafka consumers of {} could not be started again: liveness is DOWN", name, e);
            synchronized (this) {
                stopped.put(name, "RESTART_FAILED");
            }
        } finally {
            synchronized (this) {
                restarting.remove(name);
            }
        }
    }

    /** Before the containers stop: a restart scheduled or running then would start them again mid-shutdown. */
    @EventListener(ContextClosedEvent.class)
    void closing() {
        synchronized (this) {
            closing = true;
        }
        restarter.shutdownNow();
    }

    /** Whether a restart of the container is scheduled or running. */
    synchronized boolean restarting(String name) {
        return restarting.contains(name);
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
