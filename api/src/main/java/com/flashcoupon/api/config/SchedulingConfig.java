package com.flashcoupon.api.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * One executor per kind of job, so that none waits behind another: the drainer may wait for Kafka's acknowledgement
 * for as long as the producer's delivery time-out, retiring an event may wait for MySQL, and a draw of a million
 * entrants takes seconds, while the backend watch, the gauges and the gate's counters must keep their beat.
 * {@code taskScheduler} is the default for {@code @Scheduled}.
 */
@Configuration(proxyBeanMethods = false)
class SchedulingConfig {

    @Bean
    ThreadPoolTaskScheduler taskScheduler() {
        return scheduler("jobs-", 2);
    }

    @Bean
    ThreadPoolTaskScheduler drainScheduler() {
        return scheduler("drain-", 1);
    }

    @Bean
    ThreadPoolTaskScheduler retireScheduler() {
        return scheduler("retire-", 1);
    }

    @Bean
    ThreadPoolTaskScheduler drawScheduler() {
        return scheduler("draw-", 1);
    }

    private static ThreadPoolTaskScheduler scheduler(String prefix, int threads) {
        var scheduler = new ThreadPoolTaskScheduler();
        scheduler.setPoolSize(threads);
        scheduler.setThreadNamePrefix(prefix);
        return scheduler;
    }
}
