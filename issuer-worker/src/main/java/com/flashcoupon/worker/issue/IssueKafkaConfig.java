package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.worker.config.WorkerProperties;
import java.util.HashMap;
import java.util.Map;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.kafka.autoconfigure.ConcurrentKafkaListenerContainerFactoryConfigurer;
import org.springframework.boot.kafka.autoconfigure.DefaultKafkaConsumerFactoryCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.kafka.KafkaException;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.ConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.core.ProducerFactory;
import org.springframework.kafka.listener.ContainerProperties.AckMode;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

/**
 * Kafka wiring of the issue pipeline: a batch container factory (offsets committed per batch, after the listener
 * returned), the result and dead-letter templates, and the one error handler.
 */
@Configuration(proxyBeanMethods = false)
class IssueKafkaConfig {

    /**
     * Batch size, manual commits, and how fast a lost or restarted worker's partitions move: Kafka's default session
     * timeout (45 s) stopped issuance for that long after a worker was killed and restarted; a shorter one bounds it,
     * and static membership ({@code instance-id}) hands a restarted worker its partitions back without waiting at all.
     */
    @Bean
    DefaultKafkaConsumerFactoryCustomizer maxBatchCustomizer(WorkerProperties worker) {
        Map<String, Object> configs = new HashMap<>();
        configs.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, worker.maxBatch());
        configs.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        configs.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int)
                worker.sessionTimeout().toMillis());
        // Kafka asks for heartbeats well inside the session: a third of it at most, Kafka's 3 s at most
        configs.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int)
                Math.min(3_000, worker.sessionTimeout().toMillis() / 3));
        if (!worker.instanceId().isBlank()) {
            // Spring Kafka appends each consumer thread's suffix ("-0", "-1", ...)
            configs.put(
                    ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, worker.instanceId().strip());
        }
        return factory -> factory.updateConfigs(configs);
    }

    @Bean
    ConcurrentKafkaListenerContainerFactory<Object, Object> kafkaListenerContainerFactory(
            ConcurrentKafkaListenerContainerFactoryConfigurer configurer,
            ConsumerFactory<Object, Object> consumerFactory,
            DefaultErrorHandler issueErrorHandler,
            WorkerProperties worker) {
        var factory = new ConcurrentKafkaListenerContainerFactory<Object, Object>();
        configurer.configure(factory, consumerFactory);
        factory.setBatchListener(true);
        factory.setConcurrency(worker.concurrency());
        factory.setCommonErrorHandler(issueErrorHandler);
        factory.getContainerProperties().setAckMode(AckMode.BATCH);
        factory.getContainerProperties().setAuthExceptionRetryInterval(WorkerProperties.KAFKA_AUTH_RETRY);
        return factory;
    }

    /**
     * The key(s) a requested record's signature must hold under, shared with the api ({@link RecordSignature}):
     * outside the local profile a missing key, or the public local one, stops the worker at start, rather than a
     * worker that either dead-letters every record or writes whatever anyone publishes.
     */
    @Bean
    RecordSignature recordSignature(
            @Value("${coupon.record.signing-key:}") String signingKey, Environment environment) {
        return RecordSignature.fromSetting(signingKey, environment.matchesProfiles("local"));
    }

    @Bean
    KafkaTemplate<String, IssueResult> issueResultTemplate(ProducerFactory<String, IssueResult> producerFactory) {
        return new KafkaTemplate<>(producerFactory);
    }

    /** Same producer settings (acks=all, idempotent), but forwards unreadable bytes as they were. */
    @Bean
    KafkaTemplate<Object, Object> deadLetterTemplate(ProducerFactory<Object, Object> producerFactory) {
        return new KafkaTemplate<>(
                producerFactory, Map.of(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, DeadLetterValueSerializer.class));
    }

    @Bean
    UnprocessableRecoverer unprocessableRecoverer(
            KafkaTemplate<Object, Object> deadLetterTemplate,
            CouponIssuer issuer,
            ResultStore store,
            ResultPublisher publisher,
            IssueMetrics metrics) {
        // partition -1: the broker's partitioner places it by key, so one coupon's dead letters stay in order
        var deadLetters = new DeadLetterPublishingRecoverer(
                deadLetterTemplate, (record, e) -> new TopicPartition(Topics.ISSUE_REQUESTED_DEAD_LETTER, -1));
        return new UnprocessableRecoverer(deadLetters, issuer, store, publisher, metrics);
    }

    /**
     * The one error handler. {@link PoisonRecordException}: the records before it are committed, it is retried
     * {@code poison-attempts} times, then recovered (dead-lettered), at once for a coupon with no row or a forged record; unreadable bytes are not retried at all (Spring
     * Kafka classifies {@code DeserializationException} as not retryable). {@link RetryBatchException}: the whole
     * batch is redelivered with a capped exponential back-off that never ends, so an outage never dead-letters; it is
     * classified retryable explicitly, so that a cause Spring Kafka deems fatal (a ClassCastException from a bug)
     * cannot turn it into a dead letter either.
     */
    @Bean
    DefaultErrorHandler issueErrorHandler(UnprocessableRecoverer unprocessableRecoverer, WorkerProperties worker) {
        BackOff untilItWorks = untilItWorks(worker.retry());
        BackOff bounded = new FixedBackOff(
                worker.retry().poisonInterval().toMillis(), worker.retry().poisonAttempts());
        var handler = new DefaultErrorHandler(unprocessableRecoverer, untilItWorks);
        handler.addRetryableExceptions(RetryBatchException.class);
        // the handler rethrows "Seek to current after exception" after every recovery; IssueService and
        // UnprocessableRecoverer already log what happened, at warn, without a stack trace
        handler.setLogLevel(KafkaException.Level.DEBUG);
        // a coupon whose row is missing stays missing: its records are dead-lettered at once, not after the poison
        // retries (each once cost about a second, serially, to every other coupon of the partition)
        BackOff never = new FixedBackOff(0, 0);
        // nor does a forged record gain a signature by waiting
        handler.setBackOffFunction((record, failure) ->
                causedBy(failure, UnknownCouponException.class) || ForgedRecordException.in(failure)
                        ? never
                        : causedBy(failure, PoisonRecordException.class) ? bounded : untilItWorks);
        return handler;
    }

    private static BackOff untilItWorks(WorkerProperties.Retry retry) {
        var backOff = new ExponentialBackOff(retry.transientInitialInterval().toMillis(), retry.transientMultiplier());
        backOff.setMaxInterval(retry.transientMaxInterval().toMillis());
        backOff.setMaxElapsedTime(Long.MAX_VALUE);
        backOff.setMaxAttempts(Long.MAX_VALUE);
        return backOff;
    }

    private static boolean causedBy(Throwable failure, Class<? extends Throwable> type) {
        for (Throwable t : ExceptionUtils.getThrowableList(failure)) {
            if (type.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
