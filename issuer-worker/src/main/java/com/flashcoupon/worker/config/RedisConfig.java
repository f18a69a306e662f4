package com.flashcoupon.worker.config;

import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.springframework.boot.data.redis.autoconfigure.ClientResourcesBuilderCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Reconnect attempts to Redis at most half a second apart. Lettuce's default doubles the pause up to 30 s, so after an
 * outage of some seconds the worker could wait seconds more, after Redis was back, before recording results again.
 */
@Configuration(proxyBeanMethods = false)
class RedisConfig {

    @Bean
    ClientResourcesBuilderCustomizer reconnectPromptly() {
        return resources -> resources.reconnectDelay(
                Delay.exponential(Duration.ofMillis(10), Duration.ofMillis(500), 2, TimeUnit.MILLISECONDS));
    }
}
