package com.flashcoupon.clients;

import com.flashcoupon.api.ApiApplication;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.TestDatabase;
import com.flashcoupon.worker.IssuerWorkerApplication;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * The api and the issuer worker in this JVM, for the clients to drive over real HTTP: an in-process KRaft broker, a
 * throw-away database on the real MySQL-compatible server, Redis database 12 ({@code COUPON_TEST_CLIENTS_REDIS_URL},
 * flushed at start). Rate limits are off (every client here comes from one address); the overload guard and the
 * stream caps are as shipped.
 */
final class ClientStack implements AutoCloseable {

    static final String JWT_SECRET = "client-tests-secret-0123456789-0123456789";
    static final String REDIS_URL = env("COUPON_TEST_CLIENTS_REDIS_URL", "redis://127.0.0.1:6379/12");

    final EmbeddedKafkaKraftBroker kafka;
    final TestDatabase database;
    final JdbcClient jdbc;
    final ConfigurableApplicationContext worker;
    final ConfigurableApplicationContext api;
    private final HttpClient http = HttpClient.newHttpClient();

    ClientStack() {
        kafka = new EmbeddedKafkaKraftBroker(1, 3, Topics.ISSUE_REQUESTED, Topics.ISSUE_RESULT);
        kafka.afterPropertiesSet();
        database = TestDatabase.create();
        DataSource dataSource = new DriverManagerDataSource(database.url(), database.user(), database.password());
        jdbc = JdbcClient.create(dataSource);
        flush();
        Map<String, Object> common = new HashMap<>(database.springProperties());
        common.put("spring.data.redis.url", REDIS_URL);
        common.put("spring.kafka.bootstrap-servers", kafka.getBrokersAsString());
        common.put("server.port", "0");
        // outside the local profile both apps need the key the api signs issue requests with and the worker checks
        common.put("coupon.record.signing-key", "client-tests-record-signing-key-0123456789");
        Map<String, Object> workerSettings = new HashMap<>(common);
        workerSettings.put("spring.main.web-application-type", "servlet");
        worker = new SpringApplicationBuilder(IssuerWorkerApplication.class).run(arguments(workerSettings));
        Map<String, Object> apiSettings = new HashMap<>(common);
        apiSettings.putAll(ApiApplication.DEFAULTS);
        apiSettings.put("coupon.jwt.secret", JWT_SECRET);
        // outside the local profile the proof-of-work key and the draw's seed key are required, as in a deployment
        apiSettings.put("coupon.human-check.secret", "client-tests-proof-of-work-key-0123456789");
        apiSettings.put("coupon.draw.seed-key", "client-tests-draw-seed-key-0123456789-0123456789");
        apiSettings.put("coupon.ratelimit.member-per-second", "0");
        apiSettings.put("coupon.ratelimit.address-per-second", "0");
        // no start-up warm-up (20,000 requests, up to 20 s of both cores): these tests measure no latency
        apiSettings.put("coupon.warmup.requests", "0");
        // a heartbeat every 2 s (15 s as shipped), so that the wire-cost test measures several in a few seconds
        apiSettings.put("coupon.live.heartbeat", "2s");
        api = new SpringApplicationBuilder(ApiApplication.class).run(arguments(apiSettings));
    }

    private static void flush() {
        var uri = URI.create(REDIS_URL);
        var config = new RedisStandaloneConfiguration(uri.getHost(), uri.getPort());
        String path = uri.getPath();
        config.setDatabase(path == null || path.length() <= 1 ? 0 : Integer.parseInt(path.substring(1)));
        var factory = new LettuceConnectionFactory(config);
        factory.afterPropertiesSet();
        factory.start();
        new StringRedisTemplate(factory).execute((RedisCallback<Object>) connection -> {
            connection.serverCommands().flushDb();
            return null;
        });
        factory.destroy();
    }

    String url() {
        return "http://127.0.0.1:"
                + ((WebServerApplicationContext) api).getWebServer().getPort();
    }

    /** Creates an event through the admin API from these fields (name, quantity and rate have defaults); its id. */
    long createCoupon(Map<String, Object> fields) {
        Map<String, Object> body = new HashMap<>();
        body.put("name", "client test");
        body.put("totalQuantity", 10);
        body.put("issueRatePerSecond", 100);
        body.put("openAt", Instant.now().minusSeconds(5).truncatedTo(java.time.temporal.ChronoUnit.SECONDS));
        body.putAll(fields);
        StringBuilder json = new StringBuilder("{");
        body.forEach((key, value) -> {
            if (json.length() > 1) {
                json.append(',');
            }
            json.append('"').append(key).append("\":").append(jsonValue(value));
        });
        json.append('}');
        try {
            HttpResponse<String> answer = http.send(
                    HttpRequest.newBuilder(URI.create(url() + "/admin/v1/coupons"))
                            .header("Authorization", "Bearer " + token("operator", List.of("coupon-admin")))
                            .header("Content-Type", "application/json")
                            // patient: on a busy two-core machine an admin write has taken over 30 s
                            .timeout(Duration.ofSeconds(120))
                            .POST(HttpRequest.BodyPublishers.ofString(json.toString()))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 201) {
                throw new IllegalStateException("create coupon: " + answer.statusCode() + " " + answer.body());
            }
            Matcher id = Pattern.compile("\"id\":(\\d+)").matcher(answer.body());
            if (!id.find()) {
                throw new IllegalStateException("no id in " + answer.body());
            }
            return Long.parseLong(id.group(1));
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String jsonValue(Object value) {
        if (value instanceof Number || value instanceof Boolean) {
            return value.toString();
        }
        if (value instanceof String text && text.startsWith("{")) {
            return text; // a nested object written out by the test
        }
        return "\"" + value + "\"";
    }

    long wallets(long couponId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    Long walletOf(long couponId, String member) {
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, member)
                .query(Long.class)
                .optional()
                .orElse(null);
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

    private static String[] arguments(Map<String, Object> settings) {
        return settings.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    @Override
    public void close() {
        api.close();
        worker.close();
        kafka.destroy();
        database.close();
    }
}
