package com.flashcoupon.loadgen.jwt;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Mints HS256 JSON Web Tokens the api accepts (docs/http-api.md, Authentication): HMAC-SHA256 with the UTF-8 bytes of the shared
 * secret over {@code base64url(header).base64url(claims)}, claims {@code sub}, {@code roles}, {@code iat}, {@code exp}.
 */
public final class JwtMinter {

    /** The role admin endpoints require. */
    public static final String ADMIN_ROLE = "coupon-admin";

    /**
     * What docs/http-api.md allows in a subject; roles keep to it too. Both are written into the JSON as they are, and these
     * characters need no escaping.
     */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    private static final Base64.Encoder BASE64URL = Base64.getUrlEncoder().withoutPadding();
    private static final String HEADER =
            BASE64URL.encodeToString("{\"alg\":\"HS256\",\"typ\":\"JWT\"}".getBytes(StandardCharsets.US_ASCII));

    private final Mac mac;
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
            this.mac = Mac.getInstance("HmacSHA256");
            this.mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
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

    public synchronized String mint(String subject, List<String> roles) {
        if (!NAME.matcher(subject).matches()) {
            throw new IllegalArgumentException("a subject is 1 to 64 characters of A-Za-z0-9._:- , was: " + subject);
        }
        for (String role : roles) {
            if (!NAME.matcher(role).matches()) {
                throw new IllegalArgumentException("a role is 1 to 64 characters of A-Za-z0-9._:- , was: " + role);
            }
        }
        long now = clock.instant().getEpochSecond();
        // Built by hand (no JSON library): minting 100,000s of tokens before a run stays quick.
        String claims = "{\"sub\":\"" + subject + "\",\"roles\":"
                + roles.stream().map(r -> "\"" + r + "\"").collect(Collectors.joining(",", "[", "]"))
                + ",\"iat\":" + now + ",\"exp\":" + (now + timeToLive.toSeconds()) + "}";
        String signingInput = HEADER + "." + BASE64URL.encodeToString(claims.getBytes(StandardCharsets.US_ASCII));
        byte[] signature = mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        return signingInput + "." + BASE64URL.encodeToString(signature);
    }
}
