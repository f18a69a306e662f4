package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.CouponRepository;
import com.flashcoupon.worker.config.WorkerProperties;
import com.google.auth.oauth2.GoogleCredentials;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.TopicPartition;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DeadLetterPublishingRecoverer;
import org.springframework.kafka.retrytopic.DeadLetterPublishingRecovererFactory;
import org.springframework.kafka.retrytopic.RetryTopicConfiguration;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationBuilder;
import org.springframework.kafka.retrytopic.RetryTopicConfigurationSupport;
import org.springframework.kafka.retrytopic.RetryTopicSchedulerWrapper;
import org.springframework.kafka.support.serializer.ErrorHandlingDeserializer;
import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The push notifier: its own consumer group on the result topic, one provider chosen by {@code coupon.notify.provider}.
 * Absent when the provider is {@code none}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("!'${coupon.notify.provider:none}'.equalsIgnoreCase('none')")
class NotifyConfig {

    static final String FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging";

    /** Result records per poll: few, as each can take {@link #recordWorstCase} when the provider is slow. */
    static final int MAX_POLL_RECORDS = 10;

    /**
     * The longest one result record takes: {@link Notifier} starts no push after {@link NotifyProperties#pushBudget()}
     * has passed on the record (the rest wait for its redelivery), and the last one started ends within it too.
     */
    static Duration recordWorstCase(NotifyProperties properties) {
        return properties.pushBudget().multipliedBy(2);
    }

    /** Sized from the worst case, so a slow provider never makes the broker take the partitions away mid-poll. */
    static Duration maxPollInterval(NotifyProperties properties) {
        return recordWorstCase(properties).multipliedBy(MAX_POLL_RECORDS).plus(Duration.ofMinutes(1));
    }

    /** One virtual thread per provider call, so that {@link PushSender} can stop waiting for a call that hangs. */
    @Bean(destroyMethod = "shutdownNow")
    ExecutorService pushAttempts() {
        return Executors.newThreadPerTaskExecutor(
                Thread.ofVirtual().name("push-attempt-", 0).factory());
    }

    @Bean
    NotifyListener notifyListener(
            ExecutorService pushAttempts,
            JdbcClient jdbc,
            CouponRepository coupons,
            TransactionTemplate transaction,
            PushProvider pushProvider,
            NotifyProperties properties,
            MeterRegistry meters) {
        var sender = new PushSender(
                pushProvider,
                properties.retry(),
                properties.requestTimeout(),
                properties.pushBudget(),
                pause -> Thread.sleep(pause.toMillis()),
                pushAttempts);
        var notifier = new Notifier(
                new DeviceDirectory(jdbc), new DeliveryLog(jdbc, coupons, transaction), sender, properties, meters);
        return new NotifyListener(notifier);
    }

    @Bean
    PushProvider pushProvider(NotifyProperties properties, ObjectProvider<GoogleCredentials> google) {
        HttpClient http = HttpClient.newBuilder()
                .connectTimeout(properties.requestTimeout())
                .version(HttpClient.Version.HTTP_1_1)
                .build();
        Clock clock = Clock.systemUTC();
        return switch (properties.provider()) {
            case FCM -> {
                if (!StringUtils.hasText(properties.fcm().projectId())) {
                    throw new IllegalStateException("coupon.notify.provider=fcm needs coupon.notify.fcm.project-id");
                }
                GoogleCredentials credentials = google.getIfAvailable(() -> credentials(properties.fcm()));
                yield new FcmProvider(
                        http,
                        properties.fcm().baseUrl(),
                        properties.fcm().projectId(),
                        accessTokens(credentials),
                        properties.requestTimeout(),
                        clock);
            }
            case WEBHOOK -> {
                if (properties.webhook().url() == null) {
                    throw new IllegalStateException("coupon.notify.provider=webhook needs coupon.notify.webhook.url");
                }
                yield new WebhookProvider(
                        http,
                        properties.webhook().url(),
                        properties.webhook().authorization(),
                        properties.requestTimeout(),
                        clock);
            }
            case NONE -> throw new IllegalStateException("no provider");
        };
    }

    /** Result events as JSON; an unreadable one arrives as null with the failure in a header and is skipped. */
    @Bean
    ConcurrentKafkaListenerContainerFactory<String, IssueResult> notifyContainerFactory(
            KafkaProperties kafka, NotifyProperties properties) {
        Map<String, Object> config = new HashMap<>(kafka.buildConsumerProperties());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, NotifyListener.GROUP);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, MAX_POLL_RECORDS);
        config.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, (int)
                maxPollInterval(properties).toMillis());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ErrorHandlingDeserializer.class);
        config.put(ErrorHandlingDeserializer.VALUE_DESERIALIZER_CLASS, JacksonJsonDeserializer.class);
        config.put(JacksonJsonDeserializer.VALUE_DEFAULT_TYPE, IssueResult.class.getName());
        config.put(JacksonJsonDeserializer.USE_TYPE_INFO_HEADERS, false);
        var factory = new ConcurrentKafkaListenerContainerFactory<String, IssueResult>();
        factory.setConsumerFactory(new DefaultKafkaConsumerFactory<>(config));
        factory.setConcurrency(properties.concurrency());
        factory.getContainerProperties().setAckMode(ContainerProperties.AckMode.RECORD);
        factory.getContainerProperties().setAuthExceptionRetryInterval(WorkerProperties.KAFKA_AUTH_RETRY);
        return factory;
    }

    /** The retry topic's and the dead-letter topic's names ({@link Topics}): the result topic's with these suffixes. */
    static final String RETRY_SUFFIX = Topics.ISSUE_RESULT_NOTIFY_RETRY.substring(Topics.ISSUE_RESULT.length());

    static final String DEAD_LETTER_SUFFIX =
            Topics.ISSUE_RESULT_NOTIFY_DEAD_LETTER.substring(Topics.ISSUE_RESULT.length());

    /**
     * Non-blocking redeliveries (Spring Kafka's retry topics): a result record whose pushes did not all finish goes to
     * {@code coupon.issue.result.notify-retry}, and its partition of the result topic carries on at once; it is
     * redelivered from there after {@code redelivery.delay} (the partition paused until then, nobody sleeps), its
     * finished pushes skipped, at most {@code redelivery.attempts} times, then it goes to
     * {@code coupon.issue.result.notify-dlt}, counted by {@link NotifyDeadLetters}; nothing consumes that topic, it is the
     * operator's. Before, such a record was retried in place
     * until it worked, and results are keyed by coupon: one member whose devices kept failing held up every other
     * member of the coupon (NotifierTest). Forwarded records keep their bytes ({@code deadLetterTemplate}): an
     * unreadable one is dead-lettered as it came.
     */
    @Bean
    RetryTopicConfiguration notifyRedeliveries(
            KafkaTemplate<Object, Object> deadLetterTemplate,
            ConcurrentKafkaListenerContainerFactory<String, IssueResult> notifyContainerFactory,
            NotifyProperties properties,
            WorkerProperties worker) {
        return RetryTopicConfigurationBuilder.newInstance()
                .includeTopic(Topics.ISSUE_RESULT)
                .maxAttempts(1 + properties.redelivery().attempts())
                .fixedBackOff(properties.redelivery().delay().toMillis())
                .useSingleTopicForSameIntervals()
                .retryTopicSuffix(RETRY_SUFFIX)
                .dltSuffix(DEAD_LETTER_SUFFIX)
                .autoCreateTopicsWith(worker.topicPartitions(), (short) worker.topicReplicationFactor())
                .listenerFactory(notifyContainerFactory)
                .autoStartDltHandler(false)
                .create(deadLetterTemplate);
    }

    @Bean
    NotifyDeadLetters notifyDeadLetters(MeterRegistry meters) {
        return new NotifyDeadLetters(meters);
    }

    /** Where a paused partition of the retry topic is woken when its next record is due. */
    @Bean
    RetryTopicSchedulerWrapper notifyRetryScheduler() {
        var scheduler = new ThreadPoolTaskScheduler();
        scheduler.setThreadNamePrefix("notify-redelivery-");
        scheduler.initialize();
        return new RetryTopicSchedulerWrapper(scheduler);
    }

    /**
     * The retry topics' infrastructure, with one blocking retry: a database outage is retried in place until it works,
     * as everything else in the worker; it is not the record's fault, and redelivering every record through the retry
     * topic meanwhile would only move the wait.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnExpression("!'${coupon.notify.provider:none}'.equalsIgnoreCase('none')")
    static class Redeliveries extends RetryTopicConfigurationSupport {

        private final ObjectProvider<NotifyDeadLetters> deadLetters;

        Redeliveries(ObjectProvider<NotifyDeadLetters> deadLetters) {
            this.deadLetters = deadLetters;
        }

        /**
         * Every record forwarded to the dead-letter topic is counted and logged there (once, without the stack trace
         * Spring Kafka would log for each forward).
         */
        @Override
        protected Consumer<DeadLetterPublishingRecovererFactory> configureDeadLetterPublishingContainerFactory() {
            return factory -> {
                factory.neverLogListenerException();
                factory.setDeadLetterPublisherCreator((templates, destinations) ->
                        new DeadLetterPublishingRecoverer(templates, (record, e) -> {
                            TopicPartition destination = destinations.apply(record, e);
                            if (destination != null && destination.topic().endsWith(DEAD_LETTER_SUFFIX)) {
                                deadLetters.getObject().record(record, e);
                            }
                            return destination;
                        }));
            };
        }

        @Override
        protected void configureBlockingRetries(BlockingRetriesConfigurer blockingRetries) {
            var untilItWorks = new ExponentialBackOff(1_000, 2.0);
            untilItWorks.setMaxInterval(30_000);
            untilItWorks.setMaxElapsedTime(Long.MAX_VALUE);
            untilItWorks.setMaxAttempts(Long.MAX_VALUE);
            blockingRetries
                    .retryOn(TransientDataAccessException.class, DataAccessResourceFailureException.class)
                    .backOff(untilItWorks);
        }
    }

    static GoogleCredentials credentials(NotifyProperties.Fcm fcm) {
        try {
            GoogleCredentials credentials;
            if (StringUtils.hasText(fcm.credentialsFile())) {
                try (InputStream in = new FileInputStream(fcm.credentialsFile())) {
                    credentials = GoogleCredentials.fromStream(in);
                }
            } else {
                credentials = GoogleCredentials.getApplicationDefault();
            }
            return credentials.createScoped(List.of(FCM_SCOPE));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot load FCM service-account credentials", e);
        }
    }

    /** A current OAuth2 access token; Google's library refreshes it shortly before it expires. */
    static Supplier<String> accessTokens(GoogleCredentials credentials) {
        return () -> {
            try {
                credentials.refreshIfExpired();
                return credentials.getAccessToken().getTokenValue();
            } catch (IOException e) {
                throw new PushPendingException("no FCM access token: " + e.getMessage());
            }
        };
    }
}
