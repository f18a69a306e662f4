package com.flashcoupon.worker.support;

import com.flashcoupon.db.TestDatabase;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * A full worker against the real services: MariaDB (a throw-away {@link TestDatabase}), Redis database 9
 * ({@link TestRedis}) and an in-process KRaft broker. Retries are short so that poison records reach the dead-letter
 * topic quickly. Requests are signed with {@link RequestPublisher#SIGNING_KEY}. Test classes get it, and the database, by extending {@link PipelineTestSupport}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.kafka.bootstrap-servers=${spring.embedded.kafka.brokers}",
            "coupon.worker.retry.poison-attempts=2",
            "coupon.worker.retry.poison-interval=100ms",
            "coupon.worker.retry.transient-initial-interval=100ms",
            "coupon.worker.retry.transient-max-interval=1s",
            "coupon.record.signing-key=" + RequestPublisher.SIGNING_KEY
        })
@EmbeddedKafka
@Import(Pipeline.class)
public @interface PipelineTest {}
