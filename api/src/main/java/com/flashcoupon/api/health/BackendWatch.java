package com.flashcoupon.api.health;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaAdmin;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Whether MySQL and Kafka answer, checked once a second off the request path. Admission touches only Redis, but the
 * api refuses to accept requests while the system of record or the broker is down (fail closed): what it accepts
 * must be publishable and writable.
 */
@Component
public class BackendWatch implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(BackendWatch.class);
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final JdbcClient jdbc;
    private final Admin kafka;
    private volatile String down;

    BackendWatch(JdbcClient jdbc, KafkaAdmin kafkaAdmin) {
        this.jdbc = jdbc;
        Map<String, Object> config = new java.util.HashMap<>(kafkaAdmin.getConfigurationProperties());
        config.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis());
        config.put(AdminClientConfig.CLIENT_ID_CONFIG, "coupon-api-backend-watch");
        this.kafka = Admin.create(config);
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

    private boolean kafkaAnswers() {
        try {
            return !kafka.describeCluster(new DescribeClusterOptions().timeoutMs((int) TIMEOUT.toMillis()))
                    .nodes()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .isEmpty();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return false;
        }
    }

    @Override
    public void destroy() {
        kafka.close(Duration.ofSeconds(1));
    }
}
