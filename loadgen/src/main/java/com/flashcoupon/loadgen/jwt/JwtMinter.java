package com.flashcoupon.loadgen.jwt;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Mints HS256 JSON Web Tokens the api accepts (docs/http-api.md, Authentication) with Nimbus JOSE+JWT, the library
 * the api verifies them with: HMAC-SHA256 keyed with the UTF-8 bytes of the shared secret, claims {@code sub},
 * {@code roles}, {@code iat}, {@code exp}. Thread-safe.
 */
public final class JwtMinter {

    /** The role admin endpoints require. */
    public static final String ADMIN_ROLE = "coupon-admin";

    /** What docs/http-api.md allows in a subject; roles keep to it too. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    private static final JWSHeader HEADER =
            new JWSHeader.Builder(JWSAlgorithm.HS256).type(JOSEObjectType.JWT).build();

    private final MACSigner signer;
    private final Clock clock;
    private final Duration timeToLive;

    /**
     * @param secret the api's {@code COUPON_JWT_SECRET}, at least 32 bytes in UTF-8
     * @param timeToLive how long a token stays valid after it was minted
     */
    public JwtMinter(String secret, Clock clock, Duration timeToLive) {
        byte[] key = secret.getBytes(StandardCharsets.UTF_8);
        if (key.length < 32) {
            throw new IllegalArgumentException(
                    "the JWT secret must be at least 32 bytes (256 bits) in UTF-8, was " + key.length);
        }
        try {
            this.signer = new MACSigner(key);
        } catch (JOSEException e) {
            throw new IllegalArgumentException("not a usable HS256 key: " + e.getMessage(), e);
        }
        this.clock = clock;
        this.timeToLive = timeToLive;
    }

    /** A token for a member: {@code roles} is empty. */
    public String member(String subject) {
        return mint(subject, List.of());
    }

    /** A token for an operator: {@code roles} is {@code ["coupon-admin"]}. */
    public String operator(String subject) {
        return mint(subject, List.of(ADMIN_ROLE));
    }

    public String mint(String subject, List<String> roles) {
        if (!NAME.matcher(subject).matches()) {
            throw new IllegalArgumentException("a subject is 1 to 64 characters of A-Za-z0-9._:- , was: " + subject);
        }
        for (String role : roles) {
            if (!NAME.matcher(role).matches()) {
                throw new IllegalArgumentException("a role is 1 to 64 characters of A-Za-z0-9._:- , was: " + role);
            }
        }
        Instant now = clock.instant();
        JWTClaimsSet claims = new JWTClaimsSet.Builder()
                .subject(subject)
                .claim("roles", List.copyOf(roles))
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plus(timeToLive)))
                .build();
        SignedJWT jwt = new SignedJWT(HEADER, claims);
        try {
            jwt.sign(signer);
        } catch (JOSEException e) {
            throw new IllegalStateException("HS256 signing failed", e);
        }
        return jwt.serialize();
    }
}
