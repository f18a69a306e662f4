package com.flashcoupon.api.draw;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/** The draw's keys ({@link DrawKeys}): outside the local profile the api does not start without its own. */
@Configuration(proxyBeanMethods = false)
class DrawKeysConfig {

    @Bean
    DrawKeys drawKeys(@Value("${coupon.draw.seed-key:}") String seedKey, Environment environment) {
        return DrawKeys.fromSetting(seedKey, environment.matchesProfiles("local"));
    }
}
