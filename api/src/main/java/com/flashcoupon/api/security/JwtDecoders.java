package com.flashcoupon.api.security;

import com.flashcoupon.api.config.ApiProperties;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import javax.crypto.spec.SecretKeySpec;
import org.springframework.security.oauth2.core.DelegatingOAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2Error;
import org.springframework.security.oauth2.core.OAuth2TokenValidator;
import org.springframework.security.oauth2.core.OAuth2TokenValidatorResult;
import org.springframework.security.oauth2.jose.jws.MacAlgorithm;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtClaimValidator;
import org.springframework.security.oauth2.jwt.JwtIssuerValidator;
import org.springframework.security.oauth2.jwt.JwtTimestampValidator;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.util.StringUtils;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * Builds the token decoder from configuration, refusing to start on an unsafe secret. Both paths that verify tokens,
 * Spring Security's chain and the lean admission path, use this one decoder, so they accept and refuse the same tokens.
 */
final class JwtDecoders {

    /** The secret bin/up uses; accepted only with the {@code local} profile. */
    static final String LOCAL_SECRET = "flash-coupon-local-secret-do-not-use-in-production";

    static final Pattern MEMBER_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** The claim of the caller's roles (SecurityConfig reads it for authorities). */
    static final String ROLES = "roles";

    private JwtDecoders() {}

    static ReactiveJwtDecoder create(ApiProperties.Jwt jwt, boolean localProfile) {
        return create(jwt, localProfile, WebClient.create(), Schedulers.parallel());
    }

    /**
     * @param identityProvider the client the JWK set is fetched with
     * @param clock what the JWK set's refresh interval is measured by (tests give a virtual clock)
     */
    static ReactiveJwtDecoder create(
            ApiProperties.Jwt jwt, boolean localProfile, WebClient identityProvider, Scheduler clock) {
        NimbusReactiveJwtDecoder decoder;
        if (StringUtils.hasText(jwt.jwkSetUri())) {
            requireIssuerAndAudience(jwt);
            decoder = NimbusReactiveJwtDecoder.withJwkSetUri(jwt.jwkSetUri())
                    .webClient(
                            JwkSetFetches.client(identityProvider, jwt.jwkSetUri(), jwt.jwkSetRefreshInterval(), clock))
                    .build();
        } else {
            decoder = NimbusReactiveJwtDecoder.withSecretKey(hmacKey(jwt.secret(), localProfile))
                    .macAlgorithm(MacAlgorithm.HS256)
                    .build();
        }
        decoder.setJwtValidator(validator(jwt));
        return decoder;
    }

    /**
     * An identity provider's JWK set signs tokens for every application it serves: without the issuer and this api's
     * audience checked, a token issued for another application would be accepted here, roles included.
     */
    private static void requireIssuerAndAudience(ApiProperties.Jwt jwt) {
        List<String> missing = new ArrayList<>();
        if (!StringUtils.hasText(jwt.issuer())) {
            missing.add("COUPON_JWT_ISSUER (coupon.jwt.issuer)");
        }
        if (!StringUtils.hasText(jwt.audience())) {
            missing.add("COUPON_JWT_AUDIENCE (coupon.jwt.audience)");
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("COUPON_JWT_JWK_SET_URI is set, so " + String.join(" and ", missing)
                    + " must be set too: without them tokens the identity provider issued for other applications"
                    + " would be accepted.");
        }
    }

    static SecretKeySpec hmacKey(String secret, boolean localProfile) {
        if (!StringUtils.hasText(secret)) {
            throw new IllegalStateException(
                    "Set COUPON_JWT_JWK_SET_URI (production) or COUPON_JWT_SECRET (at least 32 bytes) to verify tokens.");
        }
        byte[] key = secret.getBytes(StandardCharsets.UTF_8);
        if (key.length < 32) {
            throw new IllegalStateException("COUPON_JWT_SECRET must be at least 32 bytes (UTF-8); it has " + key.length
                    + ". Its value is not shown.");
        }
        // contains, not equals: the public text with a newline (a secret mounted from a file) or anything around it
        // is as guessable as the text itself
        if (secret.contains(LOCAL_SECRET) && !localProfile) {
            throw new IllegalStateException("COUPON_JWT_SECRET is, or contains, the public local default; set a secret"
                    + " of your own outside the local profile.");
        }
        return new SecretKeySpec(key, "HmacSHA256");
    }

    private static OAuth2TokenValidator<Jwt> validator(ApiProperties.Jwt jwt) {
        List<OAuth2TokenValidator<Jwt>> validators = new ArrayList<>();
        validators.add(new JwtTimestampValidator(jwt.clockSkew()));
        validators.add(new JwtClaimValidator<String>(
                "sub", sub -> sub != null && MEMBER_ID.matcher(sub).matches()));
        validators.add(JwtDecoders::requireExpiry);
        validators.add(JwtDecoders::requireRolesAsStrings);
        if (StringUtils.hasText(jwt.issuer())) {
            validators.add(new JwtIssuerValidator(jwt.issuer()));
        }
        if (StringUtils.hasText(jwt.audience())) {
            validators.add(
                    new JwtClaimValidator<List<String>>("aud", aud -> aud != null && aud.contains(jwt.audience())));
        }
        return new DelegatingOAuth2TokenValidator<>(validators);
    }

    /**
     * docs/http-api.md: {@code roles} is a JSON array of strings, or absent. Anything else is a malformed token, refused
     * 401 by every path: the lean admission path never reads roles, and Spring's authorities converter fails on a
     * number or an object in the array outside its authentication error handling (a 500), and splits a string on
     * spaces into roles.
     */
    private static OAuth2TokenValidatorResult requireRolesAsStrings(Jwt token) {
        Object roles = token.getClaims().get(ROLES);
        if (roles == null || roles instanceof List<?> list && list.stream().allMatch(String.class::isInstance)) {
            return OAuth2TokenValidatorResult.success();
        }
        return OAuth2TokenValidatorResult.failure(
                new OAuth2Error("invalid_token", "roles must be a JSON array of strings", null));
    }

    private static OAuth2TokenValidatorResult requireExpiry(Jwt token) {
        return token.getExpiresAt() != null
                ? OAuth2TokenValidatorResult.success()
                : OAuth2TokenValidatorResult.failure(new OAuth2Error("invalid_token", "exp is required", null));
    }
}
