package com.flashcoupon.api.support;

import com.flashcoupon.api.ApiApplication;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * An api started in this JVM on a free port, the way {@code ApiApplication.main} starts it, against the test database
 * and Redis and a Kafka broker the test started: for tests of several instances, or of settings of their own. The
 * caller closes it.
 */
public final class ApiInstance {

    private ApiInstance() {}

    /** Starts an api; {@code overrides} win over the test defaults (Redis URL, rate limits, anything). */
    public static ConfigurableApplicationContext start(String kafkaBrokers, Map<String, String> overrides) {
        Map<String, String> settings = new HashMap<>(TestEnvironment.database().springProperties());
        settings.put("spring.data.redis.url", TestEnvironment.REDIS_URL);
        settings.put("spring.kafka.bootstrap-servers", kafkaBrokers);
        settings.put("coupon.jwt.secret", TestEnvironment.JWT_SECRET);
        settings.put("server.port", "0");
        ApiApplication.DEFAULTS.forEach((key, value) -> settings.put(key, String.valueOf(value)));
        settings.putAll(overrides);
        String[] arguments = settings.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toArray(String[]::new);
        return new SpringApplicationBuilder(ApiApplication.class).run(arguments);
    }

    /** A client of that api, patient enough for a loaded machine. */
    public static WebTestClient client(ConfigurableApplicationContext api) {
        int port = ((WebServerApplicationContext) api).getWebServer().getPort();
        return WebTestClient.bindToServer()
                .baseUrl("http://127.0.0.1:" + port)
                .responseTimeout(Duration.ofSeconds(10))
                .build();
    }

    /** Creates an event open since five seconds ago, at 10 issues a second, through the admin API; returns its id. */
    public static long createCoupon(WebTestClient http, String name, int quantity) {
        Map<?, ?> created = http.post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .header("Content-Type", "application/json")
                .bodyValue(Map.of(
                        "name",
                        name,
                        "totalQuantity",
                        quantity,
                        "openAt",
                        Instant.now().minusSeconds(5).toString(),
                        "issueRatePerSecond",
                        10,
                        "validDays",
                        30))
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        return ((Number) created.get("id")).longValue();
    }
}
