package com.flashcoupon.pipeline;

import com.flashcoupon.api.ApiApplication;
import com.flashcoupon.api.drain.PublishHook;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.TestDatabase;
import com.flashcoupon.worker.IssuerWorkerApplication;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The whole local stack in one JVM: an in-process KRaft broker, a throw-away database on the real MySQL-compatible
 * server, Redis database 11 ({@code COUPON_TEST_PIPELINE_REDIS_URL}, flushed at start), the api and the issuer worker
 * as their own Spring applications. The worker can be stopped and started again; the api carries a hook that injects
 * a crash after Kafka acknowledged a batch and before the cursor moves.
 */
final class Stack implements AutoCloseable {

    static final String JWT_SECRET = "pipeline-test-secret-0123456789-0123456789";

    /** The proof-of-work key every api of these stacks shares, as one deployment's instances must. */
    static final String HUMAN_CHECK_SECRET = "pipeline-human-check-secret-0123456789-0123456789";

    /** The key the apis of these stacks sign issue requests with and their workers check, as one deployment's do. */
    static final String RECORD_SIGNING_KEY = "pipeline-record-signing-key-0123456789-0123456789";

    /** The key the api seals draws' seeds with and signs entry receipts with (required outside the local profile). */
    static final String DRAW_SEED_KEY = "pipeline-draw-seed-key-0123456789-0123456789";

    /**
     * Each fork's step from the first's database: 11, 13, 14 and 15 by default (12 is the client tests'). Declared
     * before {@link #REDIS_URL}, which reads it as the class is initialised.
     */
    private static final int[] FORK_DATABASE_STEPS = {0, 2, 3, 4};

    /**
     * Redis database 11 (or the one {@code COUPON_TEST_PIPELINE_REDIS_URL} names) for the first test JVM. The module runs
     * two at once (its pom) and surefire numbers the forks of every module Maven runs at once together ({@code -T 2}:
     * 1 to 3), so each fork number moves the database by its own step, so that no stack flushes another's.
     */
    static final String REDIS_URL = forkDatabase(
            env("COUPON_TEST_PIPELINE_REDIS_URL", "redis://127.0.0.1:6379/11"), Integer.getInteger("fc.test.fork", 1));

    static final Set<Long> CRASH_ONCE = ConcurrentHashMap.newKeySet();

    final EmbeddedKafkaKraftBroker kafka;
    final TestDatabase database;
    final JdbcClient jdbc;
    final StringRedisTemplate redis;
    final ConfigurableApplicationContext api;
    private final Map<String, Object> workerSettings;
    private final Map<String, Object> apiSettings;
    ConfigurableApplicationContext worker;

    Stack(Map<String, Object> apiOverrides, Map<String, Object> workerOverrides) {
        this(apiOverrides, workerOverrides, null);
    }

    /**
     * On the Kafka at {@code bootstrap} (a broker the test started itself, with its own security), or on an in-process
     * broker of the stack's own when it is null.
     */
    Stack(Map<String, Object> apiOverrides, Map<String, Object> workerOverrides, String bootstrap) {
        this(apiOverrides, workerOverrides, bootstrap, null);
    }

    /**
     * With {@code databaseAccess}, given the fresh database's JDBC URL before either app starts, preparing it (users,
     * grants, migrations) and answering more settings of each app ({@code "api"}, {@code "worker"}).
     */
    Stack(
            Map<String, Object> apiOverrides,
            Map<String, Object> workerOverrides,
            String bootstrap,
            java.util.function.Function<String, Map<String, Map<String, Object>>> databaseAccess) {
        if (bootstrap == null) {
            kafka = new EmbeddedKafkaKraftBroker(1, 3, Topics.ISSUE_REQUESTED, Topics.ISSUE_RESULT);
            kafka.afterPropertiesSet();
            bootstrap = kafka.getBrokersAsString();
        } else {
            kafka = null;
        }
        database = TestDatabase.create();
        DataSource dataSource = new DriverManagerDataSource(database.url(), database.user(), database.password());
        jdbc = JdbcClient.create(dataSource);
        redis = redisTemplate();
        redis.execute((RedisCallback<Object>) connection -> {
            connection.serverCommands().flushDb();
            return null;
        });

        Map<String, Object> common = new HashMap<>(database.springProperties());
        common.put("spring.data.redis.url", REDIS_URL);
        common.put("spring.kafka.bootstrap-servers", bootstrap);
        common.put("server.port", "0");
        common.put("coupon.record.signing-key", RECORD_SIGNING_KEY);

        Map<String, Map<String, Object>> access =
                databaseAccess == null ? Map.of() : databaseAccess.apply(database.url());

        workerSettings = new HashMap<>(common);
        workerSettings.put("spring.main.web-application-type", "servlet");
        workerSettings.putAll(workerOverrides);
        workerSettings.putAll(access.getOrDefault("worker", Map.of()));
        startWorker();

        apiSettings = new HashMap<>(common);
        apiSettings.putAll(ApiApplication.DEFAULTS);
        apiSettings.put("coupon.jwt.secret", JWT_SECRET);
        apiSettings.put("coupon.human-check.secret", HUMAN_CHECK_SECRET);
        apiSettings.put("coupon.draw.seed-key", Stack.DRAW_SEED_KEY);
        apiSettings.put("coupon.ratelimit.member-per-second", "0");
        apiSettings.put("coupon.ratelimit.address-per-second", "0");
        // the crowds here check the invariants, not overload: a fixed limit none of them reaches (api's
        // OverloadGuardTest)
        apiSettings.put("coupon.overload.initial-limit", "100000");
        apiSettings.put("coupon.overload.min-limit", "100000");
        apiSettings.put("coupon.overload.max-limit", "100000");
        apiSettings.putAll(apiOverrides);
        apiSettings.putAll(access.getOrDefault("api", Map.of()));
        api = new SpringApplicationBuilder(ApiApplication.class, CrashHook.class).run(arguments(apiSettings));
    }

    void startWorker() {
        worker = new SpringApplicationBuilder(IssuerWorkerApplication.class).run(arguments(workerSettings));
    }

    /** One more api instance on the same servers, as a second replica behind a load balancer; the caller closes it. */
    ConfigurableApplicationContext startAnotherApi() {
        return new SpringApplicationBuilder(ApiApplication.class).run(arguments(apiSettings));
    }

    /** One more worker in the same consumer group; the caller closes it. */
    ConfigurableApplicationContext startAnotherWorker() {
        return new SpringApplicationBuilder(IssuerWorkerApplication.class).run(arguments(workerSettings));
    }

    /**
     * The stock shards of a suite's scenario: the system property {@code property} when given (every scenario of the
     * suite on it), {@code scenarios} (the scenario's own choice) otherwise.
     */
    static int shards(String property, int scenarios) {
        return Integer.getInteger(property, scenarios);
    }

    /** Creates an event open since five seconds ago, through the admin API; returns its id. */
    long createCoupon(String name, int quantity, int ratePerSecond) {
        return createCoupon(http(), name, quantity, ratePerSecond);
    }

    /** Creates an event open since five seconds ago, through the admin API of the api that {@code http} calls. */
    static long createCoupon(WebTestClient http, String name, int quantity, int ratePerSecond) {
        return createCoupon(http, name, quantity, ratePerSecond, 1);
    }

    /** The same, its admission state spread over {@code stockShards} (docs/architecture.md, "Stock shards"). */
    static long createCoupon(WebTestClient http, String name, int quantity, int ratePerSecond, int stockShards) {
        Map<?, ?> body = createCoupon(
                http,
                Map.of(
                        "name",
                        name + " " + quantity,
                        "totalQuantity",
                        quantity,
                        "openAt",
                        Instant.now()
                                .minusSeconds(5)
                                .truncatedTo(java.time.temporal.ChronoUnit.SECONDS)
                                .toString(),
                        "issueRatePerSecond",
                        ratePerSecond,
                        "validDays",
                        7,
                        "stockShards",
                        stockShards));
        return ((Number) body.get("id")).longValue();
    }

    /** Creates an event from this request body, through the admin API; returns the admin view (201). */
    static Map<?, ?> createCoupon(WebTestClient http, Map<String, Object> request) {
        return http.post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + token("operator", List.of("coupon-admin")))
                .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue(request)
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    /** The member's live status stream on the api at {@code url}: its status events, as they come. */
    static List<Map<String, Object>> watch(String url, long couponId, String member) {
        List<Map<String, Object>> statuses = new java.util.concurrent.CopyOnWriteArrayList<>();
        org.springframework.web.reactive.function.client.WebClient.create(url)
                .get()
                .uri("/api/v1/coupons/{id}/issue-requests/me/events", couponId)
                .header("Authorization", "Bearer " + token(member, List.of()))
                .accept(org.springframework.http.MediaType.TEXT_EVENT_STREAM)
                .retrieve()
                .bodyToFlux(
                        new org.springframework.core.ParameterizedTypeReference<
                                org.springframework.http.codec.ServerSentEvent<Map<String, Object>>>() {})
                .filter(event -> "status".equals(event.event()))
                .subscribe(event -> statuses.add(event.data()));
        return statuses;
    }

    /** A client of the api, patient enough for a loaded machine. */
    WebTestClient http() {
        return WebTestClient.bindToServer()
                .baseUrl(apiUrl())
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** The event as the operator's view shows it ({@code GET /admin/v1/coupons/{id}}, 200). */
    Map<?, ?> adminView(long couponId) {
        return adminView(http(), couponId);
    }

    /** The same, through the api {@code http} calls (another stack's). */
    static Map<?, ?> adminView(WebTestClient http, long couponId) {
        return http.get()
                .uri("/admin/v1/coupons/{id}", couponId)
                .header("Authorization", "Bearer " + token("operator", List.of("coupon-admin")))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
    }

    /** The member's status reads ISSUED with the wallet MySQL holds for them. */
    void assertIssued(long couponId, String member) {
        long walletId = jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, member)
                .query(Long.class)
                .single();
        http().get()
                .uri("/api/v1/coupons/{id}/issue-requests/me", couponId)
                .header("Authorization", "Bearer " + token(member, List.of()))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.status")
                .isEqualTo("ISSUED")
                .jsonPath("$.walletCouponId")
                .isEqualTo(walletId);
    }

    long walletCount(long couponId) {
        return count("SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id = ?", couponId);
    }

    long failureCount(long couponId) {
        return count("SELECT COUNT(*) FROM coupon_issue_failure WHERE coupon_id = ?", couponId);
    }

    long issuedCount(long couponId) {
        return count("SELECT issued_count FROM coupon WHERE id = ?", couponId);
    }

    private long count(String sql, long couponId) {
        return jdbc.sql(sql).param(couponId).query(Long.class).single();
    }

    /** As command-line arguments, so they win over each app's own configuration file. */
    private static String[] arguments(Map<String, Object> settings) {
        return settings.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
    }

    void stopWorker() {
        worker.close();
    }

    String apiUrl() {
        return urlOf(api);
    }

    static String urlOf(ConfigurableApplicationContext app) {
        return "http://127.0.0.1:"
                + ((WebServerApplicationContext) app).getWebServer().getPort();
    }

    @Override
    public void close() {
        api.close();
        if (worker.isActive()) {
            worker.close();
        }
        if (kafka != null) {
            kafka.destroy();
        }
        database.close();
    }

    /**
     * A fair start's window is over: the event's times move an hour back in MySQL, then an operator's change (its
     * rate, to {@code ratePerSecond}) mirrors them, so that nothing waits for a clock.
     */
    static void endWindow(JdbcClient jdbc, WebTestClient http, long couponId, int ratePerSecond) {
        jdbc.sql("UPDATE coupon SET open_at = open_at - INTERVAL 1 HOUR WHERE id = ?")
                .param(couponId)
                .update();
        jdbc.sql("UPDATE coupon_draw SET draw_at = draw_at - INTERVAL 1 HOUR WHERE coupon_id = ?")
                .param(couponId)
                .update();
        admin(http.patch().uri("/admin/v1/coupons/{id}", couponId))
                .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", ratePerSecond))
                .exchange()
                .expectStatus()
                .isOk();
    }

    /** The request with an operator's token (role coupon-admin). */
    static <S extends WebTestClient.RequestHeadersSpec<?>> S admin(S request) {
        request.header("Authorization", "Bearer " + token("operator", List.of("coupon-admin")));
        return request;
    }

    static String token(String subject, List<String> roles) {
        try {
            var claims = new JWTClaimsSet.Builder()
                    .subject(subject)
                    .claim("roles", roles)
                    .expirationTime(Date.from(Instant.now().plusSeconds(3600)))
                    .build();
            var jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner(JWT_SECRET.getBytes(StandardCharsets.UTF_8)));
            return jwt.serialize();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The URL with its database number moved by the fork's step (fork numbers count from 1). */
    static String forkDatabase(String url, int fork) {
        URI uri = URI.create(url);
        String path = uri.getPath();
        int database = path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1));
        int moved = database + FORK_DATABASE_STEPS[Math.floorMod(fork - 1, FORK_DATABASE_STEPS.length)];
        if (moved > 15) {
            throw new IllegalStateException("fork " + fork + " of " + url + " would need Redis database " + moved);
        }
        return url.substring(0, url.length() - (path == null ? 0 : path.length())) + "/" + moved;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static StringRedisTemplate redisTemplate() {
        return redisTemplate(REDIS_URL);
    }

    /** A template on the Redis at {@code url} (its database from the path, 0 without one). */
    static StringRedisTemplate redisTemplate(String url) {
        var uri = java.net.URI.create(url);
        var config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        String path = uri.getPath();
        config.setDatabase(path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1)));
        var factory = new LettuceConnectionFactory(config);
        factory.afterPropertiesSet();
        factory.start();
        return new StringRedisTemplate(factory);
    }

    /** Crashes the drainer once, after Kafka acknowledged a batch of an armed coupon and before its cursor moves. */
    @Configuration(proxyBeanMethods = false)
    static class CrashHook {

        @Bean
        PublishHook crashOnce() {
            return (couponId, fromCursor, count) -> {
                if (CRASH_ONCE.remove(couponId)) {
                    throw new IllegalStateException("injected crash after publishing " + count);
                }
            };
        }
    }
}
