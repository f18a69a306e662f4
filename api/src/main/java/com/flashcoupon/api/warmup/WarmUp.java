package com.flashcoupon.api.warmup;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.shard.ShardDeal;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.StockShards;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.HttpMethod;
import org.springframework.stereotype.Component;
import org.springframework.util.StringUtils;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;

/**
 * The api's warm-up before it reports ready: a flash event opens on a cold JVM, whose first thousands of requests run
 * interpreted code while the JIT compiles, and a crowd that arrives then waited seconds (bin/demo on a fresh api: p99
 * 2.7 s, p99.9 4.8 s, against tens of milliseconds once warm). So the api first sends itself member requests, through
 * its own HTTP port and the whole stack (security, rate limits, admission script, status, JSON), on a coupon that
 * exists only in Redis, its own (an id drawn from {@link CouponKeys#WARM_UP_FIRST}'s range, so instances starting
 * together never share one), then removes that coupon's keys. It runs in the
 * {@link ApplicationReadyEvent}, before Spring Boot marks the api ready, so a load balancer sends nothing meanwhile.
 * Half the members ask on an event of one stock shard, half on one of {@link #SHARDS} (docs/architecture.md, "Stock
 * shards"): the two admit and answer statuses by different scripts and code, and a first sharded crowd should meet
 * compiled code too. (Measured, it did not by itself change how a fresh stack's first six-shard event was issued:
 * docs/benchmarks/2026-11-30-fresh-stack.)
 *
 * <p>Tokens are minted with the HS256 secret when there is one. With a JWK set the api cannot mint a token it accepts,
 * but it warms the decoding production runs all the same: RS256 tokens with the issuer and audience it expects,
 * signed by a throw-away key (a handful, reused: signing is the costly part), go through parsing, the JWK set (fetched
 * at most once per refresh interval, whatever the kid) and the claim checks to a 401. The warm-up's admissions show in the admission metrics. A failure (Redis down at
 * start) is logged and the api starts anyway.
 */
@Component
class WarmUp {

    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);

    private final ApiProperties properties;
    private final StringRedisTemplate redis;

    private static final int UNKNOWN_KEY_TOKENS = 16;

    /** Each warm-up coupon's stock: never sold out. */
    private static final int TOTAL = 1_000_000_000;

    private final ShardStock stock;

    /** The stock shards of the second warm-up coupon. */
    static final int SHARDS = 6;

    /** This instance's warm-up coupons: one stock shard, then {@link #SHARDS}. */
    private final long couponId = CouponKeys.WARM_UP_FIRST
            + ThreadLocalRandom.current().nextLong(Long.MAX_VALUE - CouponKeys.WARM_UP_FIRST + 1);

    private final long shardedCouponId = couponId == Long.MAX_VALUE ? couponId - 1 : couponId + 1;

    /** 202 answers per warm-up coupon: one shard, then {@link #SHARDS}. */
    private final AtomicInteger[] admitted = {new AtomicInteger(), new AtomicInteger()};

    WarmUp(ApiProperties properties, StringRedisTemplate redis, ShardStock stock) {
        this.properties = properties;
        this.redis = redis;
        this.stock = stock;
    }

    /** This instance's warm-up coupon of one stock shard. */
    long couponId() {
        return couponId;
    }

    /** This instance's warm-up coupon of {@link #SHARDS} stock shards. */
    long shardedCouponId() {
        return shardedCouponId;
    }

    /** Members the warm-up admitted (202) on its coupon of one shard ({@code sharded} false) or of several. */
    int admitted(boolean sharded) {
        return admitted[sharded ? 1 : 0].get();
    }

    @EventListener
    void onReady(ApplicationReadyEvent event) {
        ApiProperties.WarmUp settings = properties.warmup();
        if (settings.requests() == 0 || !(event.getApplicationContext() instanceof WebServerApplicationContext web)) {
            return;
        }
        long started = System.nanoTime();
        try {
            int sent = run(web.getWebServer().getPort(), settings);
            log.info(
                    "warmed up with {} member requests in {} ms",
                    sent,
                    Duration.ofNanos(System.nanoTime() - started).toMillis());
        } catch (RuntimeException e) {
            log.warn("the warm-up failed; starting cold: {}", e.toString());
        } finally {
            removeCoupons();
        }
    }

    private int run(int port, ApiProperties.WarmUp settings) {
        for (long coupon : List.of(couponId, shardedCouponId)) {
            int shards = coupon == couponId ? 1 : SHARDS;
            redis.opsForHash()
                    .putAll(
                            CouponKeys.meta(coupon),
                            Map.of(
                                    "name", "warm-up",
                                    "total", Integer.toString(TOTAL),
                                    "openAt", "0",
                                    "closeAt", "0",
                                    "closed", "0",
                                    "rate", "1000",
                                    "base", "0",
                                    "shards", Integer.toString(shards)));
        }
        stock.deal()
                .init(shardedCouponId, SHARDS, TOTAL, ShardDeal.Settings.open(1000))
                .block(settings.atMost());
        ConnectionProvider pool = ConnectionProvider.builder("warm-up")
                .maxConnections(settings.concurrency())
                .build();
        try {
            HttpClient http = HttpClient.create(pool).baseUrl("http://127.0.0.1:" + port);
            AtomicInteger sent = new AtomicInteger();
            long members = Math.max(1, settings.requests() / 3);
            Flux.range(0, (int) members)
                    .flatMap(
                            i -> {
                                String authorization = "Bearer " + token("warm-up-" + i);
                                // every other member on the sharded coupon
                                int kind = i % 2;
                                String admit = "/api/v1/coupons/" + (kind == 0 ? couponId : shardedCouponId)
                                        + "/issue-requests";
                                // a new member (202), the same again (200), then the status read
                                return call(http, HttpMethod.POST, admit, authorization, sent, admitted[kind])
                                        .then(call(http, HttpMethod.POST, admit, authorization, sent, null))
                                        .then(call(http, HttpMethod.GET, admit + "/me", authorization, sent, null));
                            },
                            settings.concurrency())
                    .take(settings.atMost())
                    .blockLast(settings.atMost().plusSeconds(5));
            return sent.get();
        } finally {
            pool.dispose();
        }
    }

    /** One request; {@code admitted}, when given, counts a 202. */
    private static Mono<Void> call(
            HttpClient http,
            HttpMethod method,
            String path,
            String authorization,
            AtomicInteger sent,
            AtomicInteger admitted) {
        return http.headers(headers -> headers.set("Authorization", authorization))
                .request(io.netty.handler.codec.http.HttpMethod.valueOf(method.name()))
                .uri(path)
                .responseSingle((response, body) -> {
                    if (admitted != null && response.status().code() == 202) {
                        admitted.incrementAndGet();
                    }
                    return body.then();
                })
                .doOnSuccess(done -> sent.incrementAndGet())
                .onErrorResume(error -> Mono.empty());
    }

    /**
     * A member token the api accepts (HS256 with its secret, its issuer and audience), or with a JWK set one of a few
     * RS256 tokens it refuses only for their key.
     */
    private String token(String subject) {
        ApiProperties.Jwt jwt = properties.jwt();
        if (!StringUtils.hasText(jwt.secret())) {
            return unknownKeyToken(subject.hashCode());
        }
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .subject(subject)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(300)))
                .claim("roles", List.of());
        if (StringUtils.hasText(jwt.issuer())) {
            claims.issuer(jwt.issuer());
        }
        if (StringUtils.hasText(jwt.audience())) {
            claims.audience(jwt.audience());
        }
        try {
            SignedJWT signed = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims.build());
            signed.sign(new MACSigner(jwt.secret().getBytes(StandardCharsets.UTF_8)));
            return signed.serialize();
        } catch (JOSEException e) {
            return "not-a-token";
        }
    }

    /** Tokens signed by a key no JWK set has, made once per warm-up. */
    private volatile List<String> unknownKeyTokens;

    private String unknownKeyToken(int member) {
        List<String> tokens = unknownKeyTokens;
        if (tokens == null) {
            tokens = signedByAThrowAwayKey();
            unknownKeyTokens = tokens;
        }
        return tokens.isEmpty() ? "not-a-token" : tokens.get(Math.floorMod(member, tokens.size()));
    }

    private List<String> signedByAThrowAwayKey() {
        ApiProperties.Jwt jwt = properties.jwt();
        try {
            RSAKey key = new RSAKeyGenerator(2048).keyID("warm-up").generate();
            RSASSASigner signer = new RSASSASigner(key);
            Instant now = Instant.now();
            List<String> tokens = new java.util.ArrayList<>();
            for (int i = 0; i < UNKNOWN_KEY_TOKENS; i++) {
                JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                        .subject("warm-up-" + i)
                        .issueTime(Date.from(now))
                        .expirationTime(Date.from(now.plusSeconds(300)))
                        .claim("roles", List.of());
                if (StringUtils.hasText(jwt.issuer())) {
                    claims.issuer(jwt.issuer());
                }
                if (StringUtils.hasText(jwt.audience())) {
                    claims.audience(jwt.audience());
                }
                SignedJWT signed = new SignedJWT(
                        new JWSHeader.Builder(JWSAlgorithm.RS256)
                                .keyID(key.getKeyID())
                                .build(),
                        claims.build());
                signed.sign(signer);
                tokens.add(signed.serialize());
            }
            return List.copyOf(tokens);
        } catch (JOSEException e) {
            log.debug("no RS256 warm-up tokens: {}", e.toString());
            return List.of();
        }
    }

    /** Every key of both coupons, the sharded one's on each shard (one slot at a time: a cluster's DEL is per slot). */
    private void removeCoupons() {
        try {
            redis.delete(CouponKeys.state(couponId));
            redis.delete(CouponKeys.state(shardedCouponId));
            for (int shard = 0; shard < SHARDS; shard++) {
                redis.delete(StockShards.state(shardedCouponId, SHARDS, shard));
            }
        } catch (RuntimeException e) {
            log.warn("the warm-up coupons' keys could not be removed: {}", e.toString());
        }
    }
}
