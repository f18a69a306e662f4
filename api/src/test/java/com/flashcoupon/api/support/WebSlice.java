package com.flashcoupon.api.support;

import com.flashcoupon.api.config.ApiProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;

/**
 * What {@link WebSliceTest} loads of the api besides WebFlux's auto-configuration: the web infrastructure, the security
 * configuration, the strict JSON settings and the strict ids in paths, picked by name because they are package-private. No controller and no
 * rate limit filter: each test imports what it drives.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(ApiProperties.class)
@ComponentScan(
        basePackages = "com.flashcoupon.api",
        useDefaultFilters = false,
        includeFilters =
                @ComponentScan.Filter(
                        type = FilterType.REGEX,
                        pattern =
                                "com\\.flashcoupon\\.api\\.(web\\.(ProblemHandler|ProblemWriter|BodySizeLimitFilter"
                                        + "|RequestIdFilter|CanonicalIds)|security\\.(SecurityConfig|SecurityShortcut)|config\\.StrictJsonConfig)"))
public class WebSlice {

    @Bean
    MeterRegistry meterRegistry() {
        return new SimpleMeterRegistry();
    }
}
