package com.flashcoupon.worker.security;

import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;
import tools.jackson.databind.json.JsonMapper;

/**
 * Puts the worker's {@code /actuator/prometheus} behind {@code COUPON_METRICS_REQUIRE_ROLE} when it names a role, as
 * the api's; otherwise it stays public, as documented, and no token setting is read.
 */
@Configuration(proxyBeanMethods = false)
@Conditional(MetricsAccessConfig.RoleRequired.class)
class MetricsAccessConfig {

    static final String REQUIRE_ROLE = "coupon.metrics.require-role";

    @Bean
    FilterRegistrationBean<MetricsRoleFilter> metricsRole(
            MetricsSettings settings, Environment environment, JsonMapper json) {
        var filter = new MetricsRoleFilter(
                settings.metrics().requireRole().strip(),
                MetricsTokens.decoder(settings.jwt(), environment.matchesProfiles("local")),
                json);
        var registration = new FilterRegistrationBean<>(filter);
        registration.addUrlPatterns("/actuator/prometheus", "/actuator/prometheus/*");
        registration.setOrder(Ordered.HIGHEST_PRECEDENCE);
        return registration;
    }

    static final class RoleRequired implements Condition {

        @Override
        public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return StringUtils.hasText(context.getEnvironment().getProperty(REQUIRE_ROLE));
        }
    }
}
