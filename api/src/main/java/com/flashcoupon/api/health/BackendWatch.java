package com.flashcoupon.api.health;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Whether MySQL and Kafka answer, checked once a second off the request path. Admission touches only Redis, but the
 * api refuses to accept requests while the system of record or the broker is down (fail closed): what it accepts
 * must be publishable and writable.
 */
@Component
public class BackendWatch {

    private static final Logger log = LoggerFactory.getLogger(BackendWatch.class);

    private final JdbcClient jdbc;
    private final KafkaProbe kafka;
    private volatile String down;

    BackendWatch(JdbcClient jdbc, KafkaProbe kafka) {
        this.jdbc = jdbc;
        this.kafka = kafka;
    }

    /** The backing service that is down now, or null when MySQL and Kafka both answered at the last check. */
    public String down() {
        return down;
    }

    @Scheduled(fixedDelay = 1_000, initialDelay = 0)
    void check() {
        String now = mysqlAnswers() ? (kafkaAnswers() ? null : "Kafka") : "MySQL";
        if (now != null && down == null) {
            log.warn("{} is not answering: admission answers 503 until it does", now);
        } else if (now == null && down != null) {
            log.info("{} answers again: admission resumes", down);
        }
        down = now;
    }

    private boolean mysqlAnswers() {
        try {
            return jdbc.sql("SELECT 1").query(Integer.class).single() == 1;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Runs on the scheduler's thread, never an event loop: it may wait for the probe. */
    private boolean kafkaAnswers() {
        try {
            Integer nodes = kafka.nodes().block();
            return nodes != null && nodes > 0;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
