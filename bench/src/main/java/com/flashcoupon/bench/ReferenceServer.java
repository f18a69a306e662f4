package com.flashcoupon.bench;

import com.flashcoupon.contract.CouponKeys;
import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.text.ParseException;
import java.time.Clock;
import java.time.Duration;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.regex.Pattern;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;

/**
 * The reference server of issue 12: the least an admission over HTTP can cost on this machine. Reactor Netty alone (no
 * Spring), the same HS256 bearer token verified with Nimbus (signature, {@code exp}, {@code sub}), the same
 * {@code limits.lua} + {@code admit.lua} through Lettuce's async API on one shared connection, with the member's and the
 * address's limits at the api's rates, and a small JSON answer like the api's: 202 admitted, 200 asked before, 409
 * sold out or not open. What the api spends beyond this is its framework.
 *
 * <p>Run as its own process ({@code bin/bench} starts it, see {@link Process}): like the api it then has its own JIT,
 * heap and GC, and its CPU time is read from {@code /proc} the same way as the api's. It prints {@code listening on
 * <port>} once it answers, and stops when its standard input closes (when the bench's JVM exits, however it exits).
 */
public final class ReferenceServer implements AutoCloseable {

    /** What {@code docs/http-api.md} allows in a subject, as the api checks it. */
    static final Pattern MEMBER_ID = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    /** The api's default tolerance for clock differences on {@code exp} (Spring's JwtTimestampValidator). */
    static final Duration CLOCK_SKEW = Duration.ofSeconds(60);

    private static final String PATH_PREFIX = "/api/v1/coupons/";
    private static final String PATH_SUFFIX = "/issue-requests";

    /** An answer: status and JSON body. */
    record Answer(int status, String body) {}

    /** The settings: the same as the api under test, from its environment. */
    record Settings(String redisUrl, String secret, Path script, int memberPerSecond, int addressPerSecond) {}

    private final Settings settings;
    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisAsyncCommands<String, String> async;
    private final String sha;
    private final Tokens tokens;
    private final String memberRate;
    private final String memberBurst;
    private final String addressRate;
    private final String addressBurst;
    private final DisposableServer server;

    ReferenceServer(Settings settings, int port) throws Exception {
        this.settings = settings;
        this.tokens = new Tokens(settings.secret(), Clock.systemUTC());
        this.memberRate = Integer.toString(settings.memberPerSecond());
        this.memberBurst = Long.toString(burst(settings.memberPerSecond()));
        this.addressRate = Integer.toString(settings.addressPerSecond());
        this.addressBurst = Long.toString(burst(settings.addressPerSecond()));
        this.client = RedisClient.create(settings.redisUrl());
        this.connection = client.connect();
        this.async = connection.async();
        this.sha = connection.sync().scriptLoad(RawRedis.withLimits(settings.script()));
        this.server = HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .route(routes -> routes.post(PATH_PREFIX + "{couponId}" + PATH_SUFFIX, this::admit))
                .bindNow();
    }

    int port() {
        return server.port();
    }

    /** The api's burst: two seconds' worth, at least one request (RateLimits.burst). */
    static long burst(int perSecond) {
        return Math.max(1, 2L * perSecond);
    }

    private Mono<Void> admit(HttpServerRequest request, HttpServerResponse response) {
        String member = tokens.member(request.requestHeaders().get(HttpHeaderNames.AUTHORIZATION));
        if (member == null) {
            return send(response, 0, unauthorized());
        }
        long couponId = couponId(request.param("couponId"));
        if (couponId <= 0) {
            return send(response, 0, problem(404, "COUPON_NOT_FOUND", "Coupon not found"));
        }
        String address = "";
        if (settings.addressPerSecond() > 0 && request.remoteAddress() instanceof InetSocketAddress remote) {
            address = remote.getAddress().getHostAddress();
        }
        String[] keys = CouponKeys.admission(
                couponId, CouponKeys.memberLimit(couponId, member), CouponKeys.addressLimit(couponId, address));
        return Mono.fromCompletionStage(async.<List<Object>>evalsha(
                        sha, ScriptOutputType.MULTI, keys, member, memberRate, memberBurst, addressRate, addressBurst))
                .flatMap(reply -> send(response, couponId, answer(couponId, member, reply)));
    }

    private static Mono<Void> send(HttpServerResponse response, long couponId, Answer answer) {
        response.status(answer.status());
        if (answer.status() < 300) {
            response.header(HttpHeaderNames.CONTENT_TYPE, "application/json")
                    .header(HttpHeaderNames.LOCATION, PATH_PREFIX + couponId + PATH_SUFFIX + "/me");
        } else {
            response.header(HttpHeaderNames.CONTENT_TYPE, "application/problem+json");
        }
        return response.sendString(Mono.just(answer.body()), StandardCharsets.UTF_8)
                .then();
    }

    /** The coupon id of the path's variable, or -1 when it is not a positive whole number. */
    static long couponId(String text) {
        try {
            long id = Long.parseLong(text);
            return id > 0 ? id : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The HTTP answer for the admission script's reply, as the api gives it (docs/http-api.md). */
    static Answer answer(long couponId, String member, List<Object> reply) {
        long code = number(reply, 0);
        return switch ((int) code) {
            case 1 -> new Answer(202, waiting(couponId, member, number(reply, 1), number(reply, 2), number(reply, 3)));
            case 2 -> {
                String result =
                        reply.size() > 4 && reply.get(4) != null ? reply.get(4).toString() : "";
                yield new Answer(
                        200, decided(couponId, member, result, number(reply, 1), number(reply, 2), number(reply, 3)));
            }
            case 3 -> problem(409, "SOLD_OUT", "Sold out");
            case 4, 5 -> problem(409, "NOT_OPEN", "Not open");
            case 6 -> problem(429, "RATE_LIMITED", "Too many requests");
            // 0: the coupon's mirror is missing; the api would restore it from MySQL, the reference has none
            default -> problem(404, "COUPON_NOT_FOUND", "Coupon not found");
        };
    }

    private static long number(List<Object> reply, int i) {
        Object value = reply.size() > i ? reply.get(i) : null;
        return value instanceof Number n ? n.longValue() : 0;
    }

    /** IssueStatus.waiting: the position counts the admitted requests not yet issued, ahead and this one. */
    static String waiting(long couponId, String member, long sequence, long done, long rate) {
        long position = Math.max(1, sequence - done);
        long wait = rate > 0 ? (position + rate - 1) / rate : position;
        return "{\"couponId\":" + couponId + ",\"memberId\":\"" + member
                + "\",\"status\":\"WAITING\",\"position\":" + position + ",\"estimatedWaitSeconds\":" + wait
                + ",\"walletCouponId\":null}";
    }

    private static String decided(long couponId, String member, String result, long sequence, long done, long rate) {
        if (result.startsWith(CouponKeys.ISSUED_PREFIX)) {
            return "{\"couponId\":" + couponId + ",\"memberId\":\"" + member
                    + "\",\"status\":\"ISSUED\",\"position\":null,\"estimatedWaitSeconds\":null,\"walletCouponId\":"
                    + result.substring(CouponKeys.ISSUED_PREFIX.length()) + "}";
        }
        if (result.startsWith(CouponKeys.FAILED_PREFIX)) {
            return "{\"couponId\":" + couponId + ",\"memberId\":\"" + member
                    + "\",\"status\":\"FAILED\",\"position\":null,\"estimatedWaitSeconds\":null,"
                    + "\"walletCouponId\":null,\"failureReason\":\""
                    + result.substring(CouponKeys.FAILED_PREFIX.length()).replace("\"", "") + "\"}";
        }
        return waiting(couponId, member, sequence, done, rate);
    }

    static Answer problem(int status, String code, String title) {
        return new Answer(
                status,
                "{\"type\":\"about:blank\",\"title\":\"" + title + "\",\"status\":" + status + ",\"code\":\"" + code
                        + "\"}");
    }

    private static Answer unauthorized() {
        return problem(401, "UNAUTHORIZED", "Unauthorized");
    }

    /** HS256 bearer tokens checked as the api checks a member's: signature, {@code exp} present and future, sub. */
    static final class Tokens {

        private final MACVerifier verifier;
        private final Clock clock;

        Tokens(String secret, Clock clock) {
            try {
                this.verifier = new MACVerifier(secret.getBytes(StandardCharsets.UTF_8));
            } catch (JOSEException e) {
                throw new IllegalArgumentException("the secret cannot key HS256: " + e.getMessage(), e);
            }
            this.clock = clock;
        }

        /** The member of a valid {@code Authorization: Bearer} header's token; null when there is none or it fails. */
        String member(String authorization) {
            if (authorization == null || !authorization.regionMatches(true, 0, "Bearer ", 0, 7)) {
                return null;
            }
            try {
                SignedJWT jwt = SignedJWT.parse(authorization.substring(7).strip());
                if (!JWSAlgorithm.HS256.equals(jwt.getHeader().getAlgorithm()) || !jwt.verify(verifier)) {
                    return null;
                }
                JWTClaimsSet claims = jwt.getJWTClaimsSet();
                Date exp = claims.getExpirationTime();
                long now = clock.millis();
                if (exp == null || exp.getTime() + CLOCK_SKEW.toMillis() <= now) {
                    return null;
                }
                Date nbf = claims.getNotBeforeTime();
                if (nbf != null && nbf.getTime() - CLOCK_SKEW.toMillis() > now) {
                    return null;
                }
                String sub = claims.getSubject();
                return sub != null && MEMBER_ID.matcher(sub).matches() ? sub : null;
            } catch (ParseException | JOSEException | RuntimeException e) {
                return null;
            }
        }
    }

    @Override
    public void close() {
        server.disposeNow();
        connection.close();
        client.shutdown();
    }

    /**
     * {@code ReferenceServer --redis URL --secret S --script PATH --member-rate N --address-rate N [--port P]}: serves
     * until its standard input closes.
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> flags = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            flags.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Settings settings = new Settings(
                flags.getOrDefault("redis", "redis://127.0.0.1:6379"),
                flags.get("secret"),
                Path.of(flags.get("script")),
                Integer.parseInt(flags.getOrDefault("member-rate", "0")),
                Integer.parseInt(flags.getOrDefault("address-rate", "0")));
        try (ReferenceServer server =
                new ReferenceServer(settings, Integer.parseInt(flags.getOrDefault("port", "0")))) {
            System.out.println("listening on " + server.port());
            System.out.flush();
            CountDownLatch stdinClosed = new CountDownLatch(1);
            Thread.ofPlatform().daemon().start(() -> {
                try {
                    while (System.in.read() >= 0) {
                        // nothing to read: the parent holds the pipe open while it wants this server
                    }
                } catch (java.io.IOException e) {
                    // closed
                }
                stdinClosed.countDown();
            });
            stdinClosed.await();
        }
    }
}
