package com.flashcoupon.api.status;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Date;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.util.retry.Retry;

/**
 * The client side of {@link LiveStatusCapacityTest}, in a JVM of its own (one process may hold 20,000 file
 * descriptors here, and both ends of 10,000 connections would need them all): opens one live status stream per member
 * {@code cap-1 .. cap-N}, prints {@code FIRST n} as the first status events arrive and {@code ALL} once every stream
 * has its first event, then holds the streams open until its standard input closes.
 *
 * <p>Arguments: api base URL, coupon id, number of streams, the JWT secret.
 */
public final class SseCrowd {

    private SseCrowd() {}

    public static void main(String[] args) throws Exception {
        String baseUrl = args[0];
        long couponId = Long.parseLong(args[1]);
        int count = Integer.parseInt(args[2]);
        byte[] secret = args[3].getBytes(StandardCharsets.UTF_8);

        String[] tokens = new String[count];
        var signer = new MACSigner(secret);
        for (int i = 0; i < count; i++) {
            var claims = new JWTClaimsSet.Builder()
                    .subject("cap-" + (i + 1))
                    .expirationTime(new Date(System.currentTimeMillis() + 3_600_000))
                    .build();
            var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(signer);
            tokens[i] = jwt.serialize();
        }

        ConnectionProvider pool = ConnectionProvider.builder("sse-crowd")
                .maxConnections(count)
                .pendingAcquireMaxCount(-1)
                .pendingAcquireTimeout(Duration.ofSeconds(60))
                .build();
        HttpClient client = HttpClient.create(pool).baseUrl(baseUrl);
        AtomicInteger first = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        boolean[] seen = new boolean[count];
        String path = "/api/v1/coupons/" + couponId + "/issue-requests/me/events";

        Flux.range(0, count)
                .window(50)
                .concatMap(wave -> wave.doOnNext(i -> client.headers(h -> h.set("Authorization", "Bearer " + tokens[i])
                                        .set("Accept", "text/event-stream"))
                                .get()
                                .uri(path)
                                .responseContent()
                                .asString()
                                // as EventSource does: reconnect when the connection is refused or reset before the
                                // first event (a burst of connects can overflow the server's accept queue)
                                .retryWhen(
                                        Retry.backoff(5, Duration.ofMillis(500)).filter(e -> !seen[i]))
                                .subscribe(
                                        chunk -> {
                                            // one connection's chunks arrive on one event loop, in order
                                            if (seen[i] || !chunk.contains("event:status")) {
                                                return;
                                            }
                                            seen[i] = true;
                                            int n = first.incrementAndGet();
                                            if (n % 1000 == 0 || n == count) {
                                                System.out.println("FIRST " + n);
                                            }
                                            if (n == count) {
                                                System.out.println("ALL");
                                            }
                                        },
                                        e -> {
                                            if (failed.incrementAndGet() <= 5) {
                                                System.out.println("FAILED " + e);
                                            }
                                        }))
                        .then(Mono.delay(Duration.ofMillis(100))))
                .blockLast();

        try (var in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            while (in.readLine() != null) {
                // wait for the parent to close our stdin
            }
        }
        pool.disposeLater().block(Duration.ofSeconds(10));
    }
}
