package com.flashcoupon.api.support;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

/** Bearer tokens signed with the tests' HMAC secret; no server needed, so slice tests use them too. */
public final class Tokens {

    public static final String SECRET = "test-secret-for-flash-coupon-api-tests-0123456789";

    private Tokens() {}

    public static String member(String memberId) {
        return token(memberId, List.of(), Instant.now().plusSeconds(3600));
    }

    /** A member's token that carries {@code claims} too (eligibility claims, the account's risk). */
    public static String member(String memberId, Map<String, Object> claims) {
        try {
            var builder = new JWTClaimsSet.Builder()
                    .subject(memberId)
                    .claim("roles", List.of())
                    .issueTime(new Date())
                    .expirationTime(Date.from(Instant.now().plusSeconds(3600)));
            claims.forEach(builder::claim);
            var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), builder.build());
            jwt.sign(new MACSigner(SECRET.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String admin() {
        return token("operator-1", List.of("coupon-admin"), Instant.now().plusSeconds(3600));
    }

    public static String token(String subject, List<String> roles, Instant expiresAt) {
        return sign(SECRET, subject, roles, expiresAt);
    }

    public static String sign(String secret, String subject, List<String> roles, Instant expiresAt) {
        try {
            var claims = new JWTClaimsSet.Builder()
                    .subject(subject)
                    .claim("roles", roles)
                    .issueTime(new Date())
                    .expirationTime(Date.from(expiresAt))
                    .build();
            var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner(secret.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }
}
