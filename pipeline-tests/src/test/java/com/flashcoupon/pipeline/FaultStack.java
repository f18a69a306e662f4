package com.flashcoupon.pipeline;

import com.flashcoupon.api.ApiApplication;
import com.flashcoupon.db.TcpProxy;
import com.flashcoupon.db.TestDatabase;
import com.flashcoupon.worker.IssuerWorkerApplication;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The whole stack with every part a test can break: the api and the issuer worker each as a process of its own (so
 * that {@code kill -9} is real), a Kafka broker process, a Redis server with AOF {@code always}, and a TCP proxy in
 * front of the machine's MySQL, all owned by the test. The machine's own Redis and MySQL are never touched: the apps
 * reach MySQL only through the proxy (a throw-away database), and the test reads MySQL directly.
 */
final class FaultStack implements AutoCloseable {

    /** Small drain batches, so that the order invariant (issuance follows admission up to one batch) means something. */
    static final int DRAIN_BATCH = 100;

    /**
     * The stock shards of every event the suite creates when given ({@code -Dfaults.shards=K}); without it each scenario
     * names its own, 1 or 3, so that one run of the suite shows the faults' promises hold with one shard and across
     * several (docs/architecture.md, "Stock shards").
     */
    static int shards(int scenarios) {
        return Stack.shards("faults.shards", scenarios);
    }

    private static final Pattern JDBC_SERVER = Pattern.compile("^jdbc:mysql://([^/:?]+)(?::(\\d+))?/");

    final PrivateRedis redis;
    final KafkaProcess kafka;
    final TcpProxy mysql;
    final TestDatabase database;
    final JdbcClient jdbc;
    final ChildJvm api;
    final ChildJvm worker;
    private final int apiPort;
    private final Map<String, Object> apiSettings;
    private final int workerPort;
    private final HttpClient probe =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    FaultStack() throws Exception {
        redis = new PrivateRedis();
        kafka = new KafkaProcess();
        database = TestDatabase.create();
        jdbc = JdbcClient.create(new DriverManagerDataSource(database.url(), database.user(), database.password()));
        Matcher server = JDBC_SERVER.matcher(database.url());
        if (!server.find()) {
            throw new IllegalStateException("not a MySQL JDBC URL: " + database.url());
        }
        mysql = new TcpProxy(server.group(1), server.group(2) == null ? 3306 : Integer.parseInt(server.group(2)));
        String proxiedUrl = server.replaceFirst("jdbc:mysql://127.0.0.1:" + mysql.port() + "/");

        Map<String, Object> common = new HashMap<>(database.springProperties());
        // the clients' reconnect attempts during an outage would fill the logs; joins and assignments stay visible
        common.put("logging.level.org.apache.kafka", "WARN");
        common.put("logging.level.org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "INFO");
        common.put("spring.datasource.url", proxiedUrl);
        common.put("spring.data.redis.url", redis.url());
        common.put("spring.kafka.bootstrap-servers", kafka.bootstrap());
        common.put("coupon.record.signing-key", Stack.RECORD_SIGNING_KEY);

        apiPort = ProcessKit.freePort();
        Map<String, Object> apiSettings = new HashMap<>(common);
        apiSettings.put("server.port", apiPort);
        apiSettings.put("coupon.jwt.secret", Stack.JWT_SECRET);
        apiSettings.put("coupon.human-check.secret", Stack.HUMAN_CHECK_SECRET);
        apiSettings.put("coupon.draw.seed-key", Stack.DRAW_SEED_KEY);
        apiSettings.put("coupon.ratelimit.member-per-second", "0");
        apiSettings.put("coupon.ratelimit.address-per-second", "0");
        apiSettings.put("coupon.drain.max-batch", DRAIN_BATCH);
        apiSettings.put("coupon.drain.tick", "100ms");
        apiSettings.put(
                "logging.level.com.flashcoupon.api.drain.Drainer", System.getProperty("faults.drain-log", "INFO"));
        api = new ChildJvm("api", List.of("-Xmx384m"), ApiApplication.class.getName(), arguments(apiSettings));
        this.apiSettings = apiSettings;

        workerPort = ProcessKit.freePort();
        Map<String, Object> workerSettings = new HashMap<>(common);
        workerSettings.put("server.port", workerPort);
        workerSettings.put("coupon.worker.max-batch", DRAIN_BATCH);
        // as bin/up and compose run it: a static member of the group, so a restarted worker resumes at once
        // (-Dfaults.worker-instance-id= and -Dfaults.worker-session-timeout=45s measure the alternatives)
        workerSettings.put(
                "coupon.worker.instance-id", System.getProperty("faults.worker-instance-id", "fault-worker"));
        workerSettings.put("coupon.worker.session-timeout", System.getProperty("faults.worker-session-timeout", "10s"));
        worker = new ChildJvm(
                "worker", List.of("-Xmx256m"), IssuerWorkerApplication.class.getName(), arguments(workerSettings));

        // both migrate at start-up; Flyway's lock makes that safe
        try (var alone = ProcessKit.startingAlone()) {
            worker.start();
            api.start();
            awaitReady(worker, ProcessKit.START_UP);
            awaitReady(api, ProcessKit.START_UP);
        }
    }

    /**
     * Starts a second api that reaches Redis and MySQL but not Kafka (its bootstrap address is a port nothing listens
     * on): an instance cut from the broker. It takes no member traffic (not ready: Kafka is down for it) but its
     * drainer runs. Returned once it is alive; the caller closes it.
     */
    ChildJvm startApiCutFromKafka() throws Exception {
        Map<String, Object> settings = new HashMap<>(apiSettings);
        int port = ProcessKit.freePort();
        settings.put("server.port", port);
        settings.put("spring.kafka.bootstrap-servers", "127.0.0.1:" + ProcessKit.freePort());
        settings.put("coupon.warmup.requests", "0");
        // the topics exist (the first api made them): creating them at start would wait for a broker it cannot reach
        settings.put("spring.kafka.admin.auto-create", "false");
        settings.put("coupon.drain.tick", "20ms"); // it claims before the other api
        ChildJvm cut =
                new ChildJvm("api-cut", List.of("-Xmx256m"), ApiApplication.class.getName(), arguments(settings));
        cut.start();
        long deadline = System.nanoTime() + ProcessKit.START_UP.toNanos();
        var request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/actuator/health/liveness"))
                .timeout(Duration.ofSeconds(5))
                .build();
        while (true) {
            if (!cut.alive()) {
                throw new IllegalStateException("api-cut exited: see " + cut.log());
            }
            try {
                if (probe.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return cut;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                cut.close();
                throw new IllegalStateException(
                        "api-cut not alive after " + ProcessKit.START_UP + ": see " + cut.log());
            }
            Thread.sleep(250);
        }
    }

    String apiUrl() {
        return "http://127.0.0.1:" + apiPort;
    }

    WebTestClient http() {
        return WebTestClient.bindToServer()
                .baseUrl(apiUrl())
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** An event of one stock shard (or {@code -Dfaults.shards}). */
    long createCoupon(String name, int quantity, int ratePerSecond) {
        return createCoupon(name, quantity, ratePerSecond, 1);
    }

    /** An event of {@code shards} stock shards (or {@code -Dfaults.shards}). */
    long createCoupon(String name, int quantity, int ratePerSecond, int shards) {
        return Stack.createCoupon(http(), name, quantity, ratePerSecond, shards(shards));
    }

    /** Waits until the app is healthy ({@link ProcessKit#healthy}). */
    void awaitReady(ChildJvm app, Duration timeout) throws InterruptedException {
        ProcessKit.awaitHealthy(probe, app, port(app), timeout);
    }

    boolean ready(ChildJvm app) throws InterruptedException {
        return ProcessKit.healthy(probe, port(app));
    }

    private int port(ChildJvm app) {
        return app == api ? apiPort : workerPort;
    }

    long walletCount(long couponId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    /**
     * The members told "accepted": those answered 202, and those whose answer was lost (no answer, or a 503 "not
     * confirmed") but who, asked again once the stack recovered, hear 200 ("admitted before") or 202. A member who
     * was never told anything and is not admitted on asking again (409, sold out) was not accepted.
     */
    Set<String> accepted(long couponId, List<Crowd.Answer> answers) {
        return accepted(apiUrl(), couponId, answers);
    }

    /**
     * The same, asking again through the api at {@code apiUrl} (any instance of several), every second until each of
     * them is answered (the stack may take a while to recover on a busy machine: a generous bound, not a measure).
     */
    static Set<String> accepted(String apiUrl, long couponId, List<Crowd.Answer> answers) {
        Set<String> accepted = new HashSet<>();
        for (Crowd.Answer answer : answers) {
            if (answer.status() == 202) {
                accepted.add(answer.memberId());
            }
        }
        for (Crowd.Answer answer : Crowd.askAgain(apiUrl, couponId, answers, Set.of(Crowd.NO_ANSWER, 503), RECOVERY)) {
            if (answer.status() == 200 || answer.status() == 202) {
                accepted.add(answer.memberId());
            }
        }
        return accepted;
    }

    /** How long the members whose answers were lost keep asking again after a fault, at most. */
    private static final Duration RECOVERY = Duration.ofMinutes(2);

    @Override
    public void close() throws Exception {
        for (AutoCloseable part : new AutoCloseable[] {api, worker, kafka, mysql, redis}) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception e) {
                // close the rest anyway
            }
        }
        database.close();
    }

    private static List<String> arguments(Map<String, Object> settings) {
        return settings.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toList();
    }
}
