package com.flashcoupon.api.config;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.boot.data.redis.autoconfigure.LettuceClientOptionsBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The shared Redis connection is opened at start-up, not on first use: opened lazily, the first use can come from a
 * Lettuce event-loop thread (a reactive chain continuing after another Redis reply), and connecting blocks on that
 * very loop: a deadlock, seen in a test with two instances.
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

    /**
     * While Redis is unreachable, commands fail at once instead of queueing until the command time-out: the caller gets
     * a 503 in microseconds. Lettuce keeps reconnecting in the background. Spring Boot's options builder is adjusted,
     * not replaced, so that on a Redis Cluster it stays the cluster's (with the topology refresh of
     * {@code spring.data.redis.lettuce.cluster.refresh}); the command time-out ({@code spring.data.redis.timeout}) also
     * bounds reactive commands: without {@link TimeoutOptions} one whose reply never comes would hang its request.
     *
     * <p>Replies are handed to the caller on Lettuce's computation threads ({@code publishOnScheduler}), not on the
     * connection's I/O thread. Otherwise the rest of each request (the handler, the next script, the JSON answer) runs
     * on the one I/O thread of the shared connection, and the replies of other requests wait unread behind it: on a
     * cold JVM (interpreted code, the JIT busy) a crowd's first seconds made them wait past the command time-out, and
     * the first requests of {@code bin/demo} got 503 although Redis had answered in a millisecond.
     */
    @Bean
    LettuceClientOptionsBuilderCustomizer failFastWhileDisconnected() {
        return options -> options.autoReconnect(true)
                .publishOnScheduler(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled());
    }

    /**
     * Reconnect attempts at most {@link #RECONNECT_AT_MOST} apart. Lettuce's default doubles the pause up to 30 s:
     * after an outage of a few seconds the next attempt could come seconds after Redis was back, and every admission
     * meanwhile answered 503. Bounded, the api admits again within half a second of Redis answering.
     */
    @Bean
    ClientResourcesBuilderCustomizer reconnectPromptly() {
        return resources -> resources.reconnectDelay(Delay.exponential(
                Duration.ofMillis(10), RECONNECT_AT_MOST, 2, java.util.concurrent.TimeUnit.MILLISECONDS));
    }

    static final Duration RECONNECT_AT_MOST = Duration.ofMillis(500);

    @Bean
    static BeanPostProcessor eagerRedisConnection() {
        return new BeanPostProcessor() {
            @Override
            public Object postProcessBeforeInitialization(Object bean, String beanName) {
                if (bean instanceof LettuceConnectionFactory factory) {
                    factory.setEagerInitialization(true);
                }
                return bean;
            }
        };
    }
}
