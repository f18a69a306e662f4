package com.flashcoupon.api;

import com.flashcoupon.db.CouponPersistence;
import java.util.Map;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Import;
import org.springframework.scheduling.annotation.EnableScheduling;

@SpringBootApplication
@ConfigurationPropertiesScan
@EnableScheduling
@Import(CouponPersistence.class)
public class ApiApplication {

    /**
     * The api reads {@code api.yml} rather than {@code application.yml}, so that it and the worker can start in one JVM
     * (the pipeline tests do) without one app's configuration hiding the other's.
     */
    public static final Map<String, Object> DEFAULTS = Map.of("spring.config.name", "api");

    public static void main(String[] args) {
        var app = new SpringApplication(ApiApplication.class);
        app.setDefaultProperties(DEFAULTS);
        app.run(args);
    }
}
