package com.flashcoupon.api.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.webtestclient.autoconfigure.AutoConfigureWebTestClient;
import org.springframework.context.annotation.Import;
import org.springframework.kafka.test.context.EmbeddedKafka;

/**
 * The whole api against real Redis and MySQL (see {@link TestEnvironment}) and an in-process KRaft broker. Test
 * classes extend {@link ApiTestBase} for the property wiring; the context is shared between them.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = {
            "spring.config.name=api",
            "coupon.drain.tick=100ms",
            // no worker runs here, so no request ever gets an outcome: the backlog bound would cut every coupon's
            // rate. The adaptive rate has its own tests (RateGovernorTest, pipeline-tests' SlowDatabaseRateTest)
            "coupon.drain.adaptive.enabled=false",
            "coupon.live.heartbeat=2s",
            // the rate limits have their own tests; these drive many requests from one address and member
            "coupon.ratelimit.member-per-second=0",
            "coupon.ratelimit.address-per-second=0",
            // idle unless a test holds the broker's acknowledgements back
            "spring.kafka.producer.properties.interceptor.classes=com.flashcoupon.api.support.SlowAcks",
            // the overload guard has its own test (OverloadGuardTest); here it runs on every request (BlockHound sees
            // it) with a fixed limit no test reaches, so that no crowd of a test is refused for the machine's speed
            "coupon.overload.initial-limit=100000",
            "coupon.overload.min-limit=100000",
            "coupon.overload.max-limit=100000"
        })
@EmbeddedKafka(partitions = 3)
@AutoConfigureWebTestClient
@Import(CrashAfterPublish.class)
public @interface ApiTest {}
