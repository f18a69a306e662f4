package com.flashcoupon.db;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.simple.JdbcClient;

/** Imported by both apps: the shared persistence beans. Flyway (auto-configured) owns the schema. */
@Configuration(proxyBeanMethods = false)
public class CouponPersistence {

    @Bean
    CouponRepository couponRepository(JdbcClient jdbc) {
        return new CouponRepository(jdbc);
    }
}
