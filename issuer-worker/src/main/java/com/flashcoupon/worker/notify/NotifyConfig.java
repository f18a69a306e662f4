package com.flashcoupon.worker.notify;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.db.CouponRepository;
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
import java.util.function.Supplier;
import org.apache.commons.lang3.exception.ExceptionUtils;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.dao.TransientDataAccessException;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.config.ConcurrentKafkaListenerContainerFactory;
import org.springframework.kafka.core.DefaultKafkaConsumerFactory;
import org.springframework.kafka.listener.ContainerProperties;
import org.springframework.kafka.listener.DefaultErrorHandler;
import org.springframework.kafka.support.serializer.ErrorHandlingDeserializer;
import org.springframework.kafka.support.serializer.JacksonJsonDeserializer;
import org.springframework.transaction.support.TransactionTemplate;
import org.springframework.util.StringUtils;
import org.springframework.util.backoff.BackOff;
import org.springframework.util.backoff.ExponentialBackOff;
import org.springframework.util.backoff.FixedBackOff;

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

    @Bean
    NotifyListener notifyListener(
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
                pause -> Thread.sleep(pause.toMillis()));
        var notifier = new Notifier(
                new DeviceDirectory(jdbc), new DeliveryLog(jdbc, coupons, transaction), sender, properties, meters);
        return new NotifyListener(notifier);
    }

    @Bean
    PushProvider pushProvider(
            NotifyProperties properties, org.springframework.beans.factory.ObjectProvider<GoogleCredentials> google) {
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
        factory.setCommonErrorHandler(errorHandler());
        return factory;
    }

    /**
     * A push that could not be finished yet (provider down, being sent elsewhere) or a database outage is retried
     * until it works, with a capped back-off; anything else (a bug) three times, then logged and skipped.
     */
    private static DefaultErrorHandler errorHandler() {
        var untilItWorks = new ExponentialBackOff(1_000, 2.0);
        untilItWorks.setMaxInterval(30_000);
        untilItWorks.setMaxElapsedTime(Long.MAX_VALUE);
        BackOff bounded = new FixedBackOff(1_000, 3);
        var handler = new DefaultErrorHandler(bounded);
        handler.setBackOffFunction((record, e) -> pending(e) ? untilItWorks : bounded);
        return handler;
    }

    private static boolean pending(Throwable e) {
        for (Throwable t : ExceptionUtils.getThrowableList(e)) {
            if (t instanceof PushPendingException
                    || t instanceof TransientDataAccessException
                    || t instanceof org.springframework.dao.DataAccessResourceFailureException) {
                return true;
            }
        }
        return false;
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
