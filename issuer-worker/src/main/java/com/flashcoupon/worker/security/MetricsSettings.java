package com.flashcoupon.worker.security;

import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Who may read the worker's {@code /actuator/prometheus}: the api's settings of the same names
 * ({@code COUPON_METRICS_REQUIRE_ROLE}, {@code COUPON_JWT_*}), so one token opens both apps' metrics.
 *
 * @param requireRole a role the bearer token's {@code roles} claim must hold; empty (the default): no token needed
 * @param jwt how tokens are verified; read only when a role is required
 */
@ConfigurationProperties("coupon")
public record MetricsSettings(
        @DefaultValue Metrics metrics, @DefaultValue Jwt jwt) {

    public record Metrics(@DefaultValue("") String requireRole) {}

    /**
     * As the api's {@code coupon.jwt}: a JWK set (with issuer and audience) or an HMAC-SHA256 secret of at least 32
     * bytes.
     *
     * @param jwkSetRefreshInterval the JWK set is fetched at most once per this interval, whatever the traffic
     */
    public record Jwt(
            @DefaultValue("") String secret,
            @DefaultValue("") String jwkSetUri,
            @DefaultValue("") String issuer,
            @DefaultValue("") String audience,
            @DefaultValue("30s") Duration clockSkew,
            @DefaultValue("30s") Duration jwkSetRefreshInterval) {}
}
