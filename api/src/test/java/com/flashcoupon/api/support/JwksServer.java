package com.flashcoupon.api.support;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An identity provider's JWK set endpoint on a free local port, for tests of JWK mode: it counts the fetches and
 * serves whichever keys the test gives it (a key rotation). Tokens are RS256, with issuer {@link #ISSUER} and audience
 * {@link #AUDIENCE}.
 */
public final class JwksServer implements AutoCloseable {

    public static final String ISSUER = "https://idp.test";
    public static final String AUDIENCE = "coupon-api";

    private final HttpServer server;
    private final AtomicInteger fetches = new AtomicInteger();
    private final AtomicReference<String> keys = new AtomicReference<>("{\"keys\":[]}");
    private final AtomicInteger status = new AtomicInteger(200);

    public JwksServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/jwks.json", exchange -> {
            fetches.incrementAndGet();
            byte[] body = keys.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status.get(), body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        });
        server.start();
    }

    public String uri() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks.json";
    }

    /** How many times the JWK set was fetched. */
    public int fetches() {
        return fetches.get();
    }

    /** Serves these keys' public halves from now on. */
    public void serve(RSAKey... signingKeys) {
        List<JWK> published = Arrays.stream(signingKeys)
                .map(RSAKey::toPublicJWK)
                .map(JWK.class::cast)
                .toList();
        keys.set(new JWKSet(published).toString());
    }

    /** Answers every fetch with this status from now on (503: the identity provider is down). */
    public void answer(int httpStatus) {
        status.set(httpStatus);
    }

    public static RSAKey newKey(String kid) {
        try {
            return new RSAKeyGenerator(2048).keyID(kid).generate();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A valid token of this identity provider, signed with {@code key}. */
    public static String token(RSAKey key, String subject, List<String> roles) {
        try {
            var claims = new JWTClaimsSet.Builder()
                    .subject(subject)
                    .issuer(ISSUER)
                    .audience(AUDIENCE)
                    .claim("roles", roles)
                    .expirationTime(Date.from(Instant.now().plusSeconds(600)))
                    .build();
            var jwt = new SignedJWT(
                    new JWSHeader.Builder(JWSAlgorithm.RS256)
                            .keyID(key.getKeyID())
                            .build(),
                    claims);
            jwt.sign(new RSASSASigner(key));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * What an attacker sends without any credential: an RS256-shaped token naming a random key id, with plausible
     * claims and a garbage signature.
     */
    public static String randomKidToken() {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        String header = "{\"alg\":\"RS256\",\"kid\":\"" + UUID.randomUUID() + "\"}";
        String payload = "{\"sub\":\"m-1\",\"iss\":\"" + ISSUER + "\",\"aud\":\"" + AUDIENCE + "\",\"exp\":"
                + Instant.now().plusSeconds(600).getEpochSecond() + "}";
        return b64.encodeToString(header.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString(payload.getBytes(StandardCharsets.UTF_8)) + "."
                + b64.encodeToString("not-a-signature".getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
