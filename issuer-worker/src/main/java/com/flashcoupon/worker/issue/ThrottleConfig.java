package com.flashcoupon.worker.issue;

import com.flashcoupon.worker.config.WorkerProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/** The wallet write-rate limit that every worker instance shares through Redis ({@link WriteThrottle#shared}). */
@Configuration(proxyBeanMethods = false)
class ThrottleConfig {

    @Bean
    WriteThrottle writeThrottle(LettuceConnectionFactory redis, WorkerProperties worker) {
        return WriteThrottle.shared(redis::getNativeClient, worker.maxWritesPerSecond());
    }
}
