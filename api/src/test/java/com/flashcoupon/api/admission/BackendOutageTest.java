package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.ApiApplication;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.db.TcpProxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * MySQL cut off (a TCP proxy in front of the real server) and then Kafka stopped: admission answers 503 UNAVAILABLE,
 * never a 202 it could not stand behind, the backends health group goes down while readiness (the instance itself)
 * stays up; after MySQL returns, everything works again by
 * itself. MySQL silent (connections open, no reply ever): a request that was waiting on MySQL answers 503 after the
 * socket time-out instead of hanging, and the health probe's deadline notices it. Redis's answer held back (a proxy in front of it too): the 503 says the outcome is unknown, never that
 * nothing was accepted, and the retry tells.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class BackendOutageTest {

    /** The host and port of the test database's server, whatever COUPON_DB_URL says. */
    private static final Pattern JDBC_SERVER = Pattern.compile("^jdbc:mysql://([^/:?]+)(?::(\\d+))?/");

    private static TcpProxy mysql;
    private static TcpProxy redis;
    private static EmbeddedKafkaKraftBroker kafka;
    private static ConfigurableApplicationContext api;
    private static WebTestClient http;
    private static String baseUrl;

    @BeforeAll
    static void start() throws Exception {
        Matcher database = JDBC_SERVER.matcher(TestEnvironment.database().url());
        if (!database.find()) {
            throw new IllegalStateException(
                    "not a MySQL JDBC URL: " + TestEnvironment.database().url());
        }
        mysql = new TcpProxy(database.group(1), database.group(2) == null ? 3306 : Integer.parseInt(database.group(2)));
        URI redisUrl = URI.create(TestEnvironment.REDIS_URL);
        redis = new TcpProxy(redisUrl.getHost(), redisUrl.getPort() < 0 ? 6379 : redisUrl.getPort());
        // its own property name: the default one is global and would point other test classes at this broker
        kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.brokerListProperty("flash-coupon.private.kafka");
        kafka.afterPropertiesSet();
        Map<String, String> settings = new HashMap<>();
        settings.put("spring.config.name", "api");
        settings.put("spring.datasource.url", database.replaceFirst("jdbc:mysql://127.0.0.1:" + mysql.port() + "/"));
        settings.put("spring.datasource.username", TestEnvironment.database().user());
        settings.put("spring.datasource.password", TestEnvironment.database().password());
        settings.put("spring.data.redis.url", "redis://127.0.0.1:" + redis.port() + redisUrl.getPath());
        settings.put("spring.data.redis.timeout", "1s");
        settings.put("spring.kafka.bootstrap-servers", kafka.getBrokersAsString());
        settings.put("coupon.jwt.secret", TestEnvironment.JWT_SECRET);
        settings.put("coupon.ratelimit.member-per-second", "0");
        settings.put("coupon.ratelimit.address-per-second", "0");
        settings.put("server.port", "0");
        api = new SpringApplicationBuilder(ApiApplication.class)
                .run(settings.entrySet().stream()
                        .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                        .toArray(String[]::new));
        int port = ((WebServerApplicationContext) api).getWebServer().getPort();
        baseUrl = "http://127.0.0.1:" + port;
        http = WebTestClient.bindToServer()
                .baseUrl(baseUrl)
                .responseTimeout(Duration.ofSeconds(20))
                .build();
    }

    @AfterAll
    static void stop() throws Exception {
        api.close();
        mysql.close();
        redis.close();
    }

    private static WebTestClient.ResponseSpec ask(long couponId, String member) {
        return http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + TestEnvironment.memberToken(member))
                .exchange();
    }

    private static int status(long couponId, String member) {
        return ask(couponId, member).returnResult(String.class).getStatus().value();
    }

    @Test
    @Order(1)
    void shouldSayTheOutcomeIsUnknownWhenRedisRanTheScriptButItsAnswerTimedOut() {
        long id = createCoupon("Lost answer");
        // Redis then knows the script: on a fresh server the first EVALSHA gets NOSCRIPT, and with that reply held
        // back the script would never run, which is another case than the one tested here
        ask(id, "first").expectStatus().isAccepted();
        redis.holdReplies(); // Redis runs the script, its answer never comes back in time
        try {
            ask(id, "lost-answer")
                    .expectStatus()
                    .isEqualTo(503)
                    .expectBody()
                    .jsonPath("$.code")
                    .isEqualTo("UNAVAILABLE")
                    .jsonPath("$.detail")
                    .value(detail -> assertThat((String) detail)
                            .contains("unknown", "/api/v1/coupons/" + id + "/issue-requests/me")
                            .doesNotContain("nothing was accepted"));
        } finally {
            redis.releaseReplies();
        }
        // it had been admitted: the retry finds it (200 with the first place), it never admits twice (202)
        ask(id, "lost-answer")
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.position")
                .isEqualTo(2);
        ask(id, "next").expectStatus().isAccepted();
    }

    private static long createCoupon(String name) {
        Map<?, ?> coupon = http.post()
                .uri("/admin/v1/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of(
                        "name",
                        name,
                        "totalQuantity",
                        10,
                        "openAt",
                        Instant.now()
                                .minusSeconds(5)
                                .truncatedTo(ChronoUnit.SECONDS)
                                .toString(),
                        "issueRatePerSecond",
                        1))
                .exchange()
                .expectStatus()
                .isCreated()
                .expectBody(Map.class)
                .returnResult()
                .getResponseBody();
        return ((Number) coupon.get("id")).longValue();
    }

    @Test
    @Order(2)
    void shouldNoticeASilentMySqlAndAnswerEveryRequestInsteadOfHangingThenRecover() throws Exception {
        long id = createCoupon("Silent MySQL");
        ask(id, "before-silence").expectStatus().isAccepted();

        // Members reading their wallets without pause: the pool's connections are busy, so some queries are on the
        // wire when the network goes silent. Only a socket time-out ends those; the pool's checks do not see them.
        var client = HttpClient.newHttpClient();
        var request = HttpRequest.newBuilder(URI.create(baseUrl + "/api/v1/me/coupons"))
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("before-silence"))
                .timeout(Duration.ofSeconds(60))
                .build();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLongArray askedAt = new AtomicLongArray(8); // 0 when the reader is not waiting for an answer
        Set<Integer> answers = ConcurrentHashMap.newKeySet();
        List<Thread> readers = new ArrayList<>();
        for (int i = 0; i < askedAt.length(); i++) {
            int reader = i;
            readers.add(Thread.ofVirtual().start(() -> {
                while (!stop.get()) {
                    askedAt.set(reader, System.nanoTime());
                    try {
                        answers.add(client.send(request, HttpResponse.BodyHandlers.discarding())
                                .statusCode());
                    } catch (Exception e) {
                        answers.add(-1);
                    }
                    askedAt.set(reader, 0);
                }
            }));
        }
        try {
            await().atMost(Duration.ofSeconds(20)).until(() -> answers.contains(200));
            mysql.holdReplies(); // connections stay open, MySQL's answers never arrive: a silent network failure
            long silentSince = System.nanoTime();
            // every request that was waiting on MySQL when it went silent gets its answer (the socket time-out, 5 s)
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                for (int i = 0; i < askedAt.length(); i++) {
                    long asked = askedAt.get(i);
                    assertThat(asked == 0 || asked - silentSince > 0)
                            .as("reader %d still waits for an answer it asked before the silence", i)
                            .isTrue();
                }
            });
            // those may all have had their reply before the silence; a request that meets it answers 503 for certain
            await().atMost(Duration.ofSeconds(60)).until(() -> answers.contains(503));
            assertThat(answers).doesNotContain(-1, 500);
            // the health probe's deadline notices it too: admission fails closed
            await().atMost(Duration.ofSeconds(30)).until(() -> status(id, "during-silence") == 503);
            http.get()
                    .uri("/actuator/health/backends")
                    .exchange()
                    .expectStatus()
                    .isEqualTo(503);
            http.get()
                    .uri("/actuator/health/readiness")
                    .exchange()
                    .expectStatus()
                    .isOk();
        } finally {
            mysql.releaseReplies();
            stop.set(true);
            for (Thread reader : readers) {
                reader.join(Duration.ofSeconds(70));
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> status(id, "after-silence") == 202);
        http.get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("before-silence"))
                .exchange()
                .expectStatus()
                .isOk();
    }

    @Test
    @Order(3) // last: it stops the broker
    void shouldAnswer503AndRecoverWhenMySqlAndThenKafkaGoDown() throws Exception {
        long id = createCoupon("Outage");
        ask(id, "before").expectStatus().isAccepted();

        mysql.cut();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(id, "during-mysql") == 503);
        ask(id, "during-mysql-2")
                .expectStatus()
                .isEqualTo(503)
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("UNAVAILABLE");
        // the backends group names MySQL; readiness is the instance itself, which still answers the contract's 503
        // (in readiness, one outage would take every instance out of a Kubernetes Service: issue 27)
        http.get().uri("/actuator/health/backends").exchange().expectStatus().isEqualTo(503);
        http.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();

        mysql.restore();
        await().atMost(Duration.ofSeconds(30)).until(() -> status(id, "after-mysql") == 202);
        ask(id, "before").expectStatus().isOk();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> http.get()
                                .uri("/actuator/health/backends")
                                .exchange()
                                .returnResult(String.class)
                                .getStatus()
                                .value()
                        == 200);

        kafka.destroy();
        // the contract's 503 (nothing accepted that could not be published), the backends group agrees, and the
        // instance stays ready to give that answer
        await().atMost(Duration.ofSeconds(30)).until(() -> status(id, "during-kafka") == 503);
        http.get().uri("/actuator/health/backends").exchange().expectStatus().isEqualTo(503);
        http.get().uri("/actuator/health/readiness").exchange().expectStatus().isOk();
    }
}
