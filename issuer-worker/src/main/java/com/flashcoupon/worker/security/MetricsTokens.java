package com.flashcoupon.worker.security;

import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.SecurityContext;
import java.net.MalformedURLException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;

/**
 * The decoder of the tokens that read the worker's metrics, with the api's rules (the two apps never share code): a JWK
 * set with issuer and audience, or an HMAC-SHA256 secret of at least 32 bytes that is not, and does not contain, the
 * public local one outside the {@code local} profile; {@code exp} required; {@code roles} a JSON array of strings.
 *
 * <p>The worker serves HTTP on Spring MVC's blocking threads, so the JWK set comes from Nimbus' {@link
 * JWKSourceBuilder}: cached, and fetched again for an unknown key id at most once per refresh interval.
 */
final class MetricsTokens {

    static final String LOCAL_SECRET = "flash-coupon-local-secret-do-not-use-in-production";

    static final String ROLES = "roles";

    private MetricsTokens() {}

    static JwtDecoder decoder(MetricsSettings.Jwt jwt, boolean localProfile) {
        NimbusJwtDecoder decoder;
        if (!jwt.jwkSetUri().isBlank()) {
            if (jwt.issuer().isBlank() || jwt.audience().isBlank()) {
                throw new IllegalStateException("COUPON_JWT_JWK_SET_URI is set, so COUPON_JWT_ISSUER and"
                        + " COUPON_JWT_AUDIENCE must be set too: without them tokens the identity provider issued for"
                        + " other applications would open the worker's metrics.");
            }
            decoder = NimbusJwtDecoder.withJwkSource(jwkSource(jwt)).build();
        } else {
            decoder = NimbusJwtDecoder.withSecretKey(hmacKey(jwt.secret(), localProfile))
                    .macAlgorithm(MacAlgorithm.HS256)
                    .build();
        }
        decoder.setJwtValidator(validator(jwt));
        return decoder;
    }

    private static JWKSource<SecurityContext> jwkSource(MetricsSettings.Jwt jwt) {
        long interval = jwt.jwkSetRefreshInterval().toMillis();
        // Nimbus wants the cache to outlive the rate limit's interval
        long timeToLive = Math.max(JWKSourceBuilder.DEFAULT_CACHE_TIME_TO_LIVE, 2 * interval);
        try {
            return JWKSourceBuilder.<SecurityContext>create(
                            URI.create(jwt.jwkSetUri()).toURL())
                    .cache(timeToLive, JWKSourceBuilder.DEFAULT_CACHE_REFRESH_TIMEOUT)
                    .rateLimited(interval)
                    .build();
        } catch (MalformedURLException | IllegalArgumentException e) {
            throw new IllegalStateException("COUPON_JWT_JWK_SET_URI is not a URL: " + jwt.jwkSetUri(), e);
        }
    }

    static SecretKeySpec hmacKey(String secret, boolean localProfile) {
        if (secret.isEmpty()) {
            throw new IllegalStateException("COUPON_METRICS_REQUIRE_ROLE is set: set COUPON_JWT_JWK_SET_URI or"
                    + " COUPON_JWT_SECRET (at least 32 bytes) to verify the tokens that read the metrics.");
        }
        byte[] key = secret.getBytes(StandardCharsets.UTF_8);
        if (key.length < 32) {
            throw new IllegalStateException("COUPON_JWT_SECRET must be at least 32 bytes (UTF-8); it has " + key.length
                    + ". Its value is not shown.");
        }
        if (secret.contains(LOCAL_SECRET) && !localProfile) {
            throw new IllegalStateException("COUPON_JWT_SECRET is, or contains, the public local default; set a secret"
                    + " of your own outside the local profile.");
        }
        return new SecretKeySpec(key, "HmacSHA256");
    }

    private static OAuth2TokenValidator<Jwt> validator(MetricsSettings.Jwt jwt) {
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
        validators.add(new JwtTimestampValidator(jwt.clockSkew()));
        validators.add(token -> token.getExpiresAt() != null
                ? OAuth2TokenValidatorResult.success()
                : OAuth2TokenValidatorResult.failure(new OAuth2Error("invalid_token", "exp is required", null)));
        validators.add(token -> {
            Object roles = token.getClaims().get(ROLES);
            return roles == null
                            || roles instanceof List<?> list && list.stream().allMatch(String.class::isInstance)
                    ? OAuth2TokenValidatorResult.success()
                    : OAuth2TokenValidatorResult.failure(
                            new OAuth2Error("invalid_token", "roles must be a JSON array of strings", null));
        });
        if (!jwt.issuer().isBlank()) {
            validators.add(new JwtIssuerValidator(jwt.issuer()));
        }
        if (!jwt.audience().isBlank()) {
            validators.add(
                    new JwtClaimValidator<List<String>>("aud", aud -> aud != null && aud.contains(jwt.audience())));
        }
        return new DelegatingOAuth2TokenValidator<>(validators);
    }
}
