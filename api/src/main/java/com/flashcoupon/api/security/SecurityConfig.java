package com.flashcoupon.api.security;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.api.web.ProblemWriter;
import com.flashcoupon.api.web.Problems;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.observation.SecurityObservationSettings;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.oauth2.server.resource.authentication.JwtAuthenticationConverter;
import org.springframework.security.oauth2.server.resource.authentication.JwtGrantedAuthoritiesConverter;
import org.springframework.security.oauth2.server.resource.authentication.ReactiveJwtAuthenticationConverterAdapter;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.security.web.server.ServerAuthenticationEntryPoint;
import org.springframework.security.web.server.authorization.ServerAccessDeniedHandler;
import org.springframework.security.web.server.context.NoOpServerSecurityContextRepository;
import org.springframework.security.web.server.firewall.ServerExchangeRejectedHandler;
import org.springframework.security.web.server.savedrequest.NoOpServerRequestCache;
import org.springframework.security.web.server.util.matcher.PathPatternParserServerWebExchangeMatcher;
import org.springframework.util.StringUtils;

/**
 * docs/http-api.md, Authentication: every endpoint below {@code /api/} and {@code /admin/v1/} needs a bearer JWT; admin
 * endpoints need {@code coupon-admin} in the {@code roles} claim, the order service's below {@code /internal/v1/}
 * {@code coupon-redeemer}; {@code /actuator/prometheus} is public unless
 * {@code coupon.metrics.require-role} names a role it needs. Stateless: no session, no saved requests.
 */
@Configuration(proxyBeanMethods = false)
@EnableWebFluxSecurity
class SecurityConfig {

    static final String ADMIN_ROLE = "coupon-admin";

    /** The order service's role: the redemption API below {@code /internal/v1/}. */
    static final String REDEEMER_ROLE = "coupon-redeemer";

    /** The name of the api's chain (Spring Boot's resource-server auto-configuration may declare one of its own). */
    static final String CHAIN = "securityFilterChain";

    @Bean(CHAIN)
    @Order(Ordered.HIGHEST_PRECEDENCE)
    SecurityWebFilterChain securityFilterChain(
            ServerHttpSecurity http,
            ReactiveJwtDecoder decoder,
            ProblemWriter problems,
            ApiProperties properties,
            ObjectProvider<RateLimits> limits) {
        String metricsRole = properties.metrics().requireRole();
        var metrics = new PathPatternParserServerWebExchangeMatcher("/actuator/prometheus/**");
        var internal = new PathPatternParserServerWebExchangeMatcher("/internal/v1/**");
        ServerAuthenticationEntryPoint unauthorized = new BearerChallenge(problems, limits.getIfAvailable());
        ServerAccessDeniedHandler forbidden = (exchange, e) -> metrics.matches(exchange)
                .zipWith(internal.matches(exchange))
                .flatMap(match -> problems.write(
                        exchange,
                        Problems.of(
                                ErrorCode.FORBIDDEN,
                                "This needs the "
                                        + (match.getT1().isMatch()
                                                ? metricsRole
                                                : match.getT2().isMatch() ? REDEEMER_ROLE : ADMIN_ROLE)
                                        + " role.")));

        return http.csrf(ServerHttpSecurity.CsrfSpec::disable)
                .httpBasic(ServerHttpSecurity.HttpBasicSpec::disable)
                .formLogin(ServerHttpSecurity.FormLoginSpec::disable)
                .logout(ServerHttpSecurity.LogoutSpec::disable)
                .anonymous(ServerHttpSecurity.AnonymousSpec::disable)
                .requestCache(cache -> cache.requestCache(NoOpServerRequestCache.getInstance()))
                .securityContextRepository(NoOpServerSecurityContextRepository.getInstance())
                .authorizeExchange(exchanges -> {
                    if (StringUtils.hasText(metricsRole)) {
                        // docs/http-api.md keeps it public by default; coupon.metrics.require-role closes it
                        exchanges.matchers(metrics).hasAuthority(metricsRole);
                    }
                    exchanges
                            .pathMatchers("/admin/v1/**")
                            .hasAuthority(ADMIN_ROLE)
                            .pathMatchers("/internal/v1/**")
                            .hasAuthority(REDEEMER_ROLE)
                            .pathMatchers("/api/**")
                            .authenticated()
                            .anyExchange()
                            .permitAll();
                })
                .oauth2ResourceServer(server -> server.jwt(
                                jwt -> jwt.jwtDecoder(decoder).jwtAuthenticationConverter(rolesConverter()))
                        .authenticationEntryPoint(unauthorized)
                        .accessDeniedHandler(forbidden))
                .exceptionHandling(handling ->
                        handling.authenticationEntryPoint(unauthorized).accessDeniedHandler(forbidden))
                .build();
    }

    /**
     * No observation around each security filter (Spring Security's default when an ObservationRegistry exists): under
     * a crowd they were about a tenth of the api's CPU (JFR, bin/bench). http.server.requests still times every request.
     */
    @Bean
    SecurityObservationSettings securityObservationSettings() {
        return SecurityObservationSettings.noObservations();
    }

    /**
     * The answer to a request Spring Security's firewall refuses (a {@code ;} path parameter, an encoded {@code /},
     * {@code .}, {@code ;}, {@code %} or a backslash in the path, a control character in the path or in a header value
     * that is read): 400 {@code INVALID_REQUEST} as a problem, like every other error, instead of the firewall's empty
     * 400.
     */
    @Bean
    ServerExchangeRejectedHandler firewallRefusal(ProblemWriter problems) {
        return (exchange, refused) -> problems.write(
                exchange,
                Problems.of(
                        ErrorCode.INVALID_REQUEST,
                        "The request's path or headers hold characters or sequences the api does not accept."));
    }

    @Bean
    ReactiveJwtDecoder jwtDecoder(ApiProperties properties, Environment environment) {
        return JwtDecoders.create(properties.jwt(), environment.matchesProfiles("local"));
    }

    private static ReactiveJwtAuthenticationConverterAdapter rolesConverter() {
        var authorities = new JwtGrantedAuthoritiesConverter();
        authorities.setAuthoritiesClaimName(JwtDecoders.ROLES);
        authorities.setAuthorityPrefix("");
        var converter = new JwtAuthenticationConverter();
        converter.setJwtGrantedAuthoritiesConverter(authorities);
        return new ReactiveJwtAuthenticationConverterAdapter(converter);
    }
}
