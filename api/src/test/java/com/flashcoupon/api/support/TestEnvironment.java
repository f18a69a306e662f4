package com.flashcoupon.api.support;

import com.flashcoupon.db.TestDatabase;
import java.time.Instant;
import java.util.List;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The real servers the api's tests run against, set up once per JVM: a throw-away database on the MySQL-compatible
 * server, Redis database 10 (flushed at start; the worker's tests use 9, local runs 0), and tokens signed with the test secret.
 */
public final class TestEnvironment {

    public static final String JWT_SECRET = Tokens.SECRET;
    public static final String REDIS_URL = env("COUPON_TEST_API_REDIS_URL", "redis://127.0.0.1:6379/10");

    private static final TestDatabase DATABASE = createDatabase();

    private TestEnvironment() {}

    private static TestDatabase createDatabase() {
        flushRedis();
        TestDatabase database = TestDatabase.create();
        Runtime.getRuntime().addShutdownHook(new Thread(database::close));
        return database;
    }

    public static TestDatabase database() {
        return DATABASE;
    }

    /** Points an app at the test servers; Kafka comes from the embedded broker. */
    public static void register(DynamicPropertyRegistry registry) {
        DATABASE.springProperties().forEach((key, value) -> registry.add(key, () -> value));
        registry.add("spring.data.redis.url", () -> REDIS_URL);
        // read once, when this context starts: the property is global, and a later context's broker overwrites it
        var brokers = new java.util.concurrent.atomic.AtomicReference<String>();
        registry.add(
                "spring.kafka.bootstrap-servers",
                () -> brokers.updateAndGet(
                        known -> known != null ? known : System.getProperty("spring.embedded.kafka.brokers")));
        registry.add("coupon.jwt.secret", () -> JWT_SECRET);
    }

    /**
     * The tests' one template on {@link #REDIS_URL}. Shared: test classes take it in a field, so one per call made a
     * Lettuce client (its timer and event loop threads) per test method, never closed: 111 timer threads in the api's
     * test JVM part-way through a full run.
     */
    public static StringRedisTemplate redis() {
        return SharedRedis.TEMPLATE;
    }

    /** Created on first use (a holder class: no lock on later calls). */
    private static final class SharedRedis {
        static final StringRedisTemplate TEMPLATE = newRedis();
    }

    private static StringRedisTemplate newRedis() {
        var uri = java.net.URI.create(REDIS_URL);
        var config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        String path = uri.getPath();
        config.setDatabase(path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1)));
        var factory = new LettuceConnectionFactory(config);
        factory.afterPropertiesSet();
        factory.start();
        return new StringRedisTemplate(factory);
    }

    private static void flushRedis() {
        StringRedisTemplate redis = redis();
        redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) connection -> {
            connection.serverCommands().flushDb();
            return null;
        });
    }

    public static String memberToken(String memberId) {
        return Tokens.member(memberId);
    }

    public static String adminToken() {
        return Tokens.admin();
    }

    public static String token(String subject, List<String> roles, Instant expiresAt) {
        return Tokens.token(subject, roles, expiresAt);
    }

    public static String sign(String secret, String subject, List<String> roles, Instant expiresAt) {
        return Tokens.sign(secret, subject, roles, expiresAt);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
