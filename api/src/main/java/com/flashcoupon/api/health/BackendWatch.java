package com.flashcoupon.api.health;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Whether MySQL and Kafka answer, checked every half second off the request path. Admission touches only Redis, but
 * the api refuses to accept requests while the system of record or the broker is down (fail closed, as the contract's
 * 503 says: what it accepts must be publishable and writable).
 *
 * <p>How late an outage is noticed is bounded: each probe that has not answered within {@link #DEADLINE} counts as
 * down, so a refused connection, a silent network (no reply at all) and a stalled server are all seen within half a
 * second plus {@code DEADLINE}: 2.5 s. A probe still running from an earlier check counts as down too, without starting another:
 * a stuck connection never piles up threads (the datasource's socket time-out ends it). Recovery is seen on the first
 * check after the service answers again, within half a second.
 */
@Component
public class BackendWatch implements DisposableBean {

    static final Duration DEADLINE = Duration.ofSeconds(2);

    private static final Logger log = LoggerFactory.getLogger(BackendWatch.class);

    private final JdbcClient jdbc;
    private final KafkaProbe kafka;
    private final Probe mysqlProbe = new Probe("mysql");
    private final Probe kafkaProbe = new Probe("kafka");
    private volatile String down;
    private volatile boolean kafkaUp = true;

    BackendWatch(JdbcClient jdbc, KafkaProbe kafka) {
        this.jdbc = jdbc;
        this.kafka = kafka;
    }

    /** The backing service that is down now, or null when MySQL and Kafka both answered at the last check. */
    public String down() {
        return down;
    }

    @Scheduled(fixedDelay = 500, initialDelay = 0)
    void check() {
        boolean mysql = mysqlProbe.answers(this::mysqlAnswers);
        kafkaUp = kafkaProbe.answers(this::kafkaDescribes); // both every time: readiness shows each one's state
        String now = mysql ? (kafkaUp ? null : "Kafka") : "MySQL";
        if (now != null && down == null) {
            log.warn("{} is not answering: admission answers 503 until it does", now);
        } else if (now == null && down != null) {
            log.info("{} answers again: admission resumes", down);
        } else if (now != null && !now.equals(down)) {
            log.warn("{} is not answering (before: {}): admission answers 503 until it does", now, down);
        }
        down = now;
    }

    /** Whether Kafka answered the last probe: the {@code kafka} health component reads it, and the drainer (it gives its leases up while Kafka is down for this instance). */
    public boolean kafkaAnswers() {
        return kafkaUp;
    }

    private boolean mysqlAnswers() {
        try {
            return jdbc.sql("SELECT 1").query(Integer.class).single() == 1;
        } catch (RuntimeException e) {
            return false;
        }
    }

    private boolean kafkaDescribes() {
        try {
            Integer nodes = kafka.nodes().block();
            return nodes != null && nodes > 0;
        } catch (RuntimeException e) {
            return false;
        }
    }

    @Override
    public void destroy() {
        mysqlProbe.thread.shutdownNow();
        kafkaProbe.thread.shutdownNow();
    }

    /** One service's probe on a thread of its own, so that a stuck probe never delays the other or the schedule. */
    private static final class Probe {

        private final ExecutorService thread;
        private CompletableFuture<Boolean> running = CompletableFuture.completedFuture(true);

        Probe(String name) {
            this.thread = Executors.newSingleThreadExecutor(
                    Thread.ofPlatform().name("backend-probe-" + name).daemon().factory());
        }

        /** Runs on the scheduler's thread only. */
        boolean answers(BooleanSupplier probe) {
            if (!running.isDone()) {
                return false; // the last probe is still waiting: that is an answer too
            }
            running = CompletableFuture.supplyAsync(probe::getAsBoolean, thread);
            try {
                return running.get(DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            } catch (Exception timedOutOrFailed) {
                return false;
            }
        }
    }
}
