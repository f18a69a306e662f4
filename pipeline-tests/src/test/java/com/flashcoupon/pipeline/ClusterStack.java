package com.flashcoupon.pipeline;

import com.flashcoupon.api.ApiApplication;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.db.TestDatabase;
import com.flashcoupon.worker.IssuerWorkerApplication;
import java.io.IOException;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.utils.Utils;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The stack as it runs on several machines: a Redis Cluster of three masters and three replicas, three Kafka brokers
 * with every topic replicated three times ({@code min.insync.replicas} 2), two api instances and two issuer workers,
 * each app a process of its own (so {@code kill -9} is real), on a throw-away MySQL database. All owned by the test.
 *
 * <p>The failover tests must fail when a safeguard of the multi-instance design is switched off
 * ({@code -Dfailover.switch-off=...}, one at a time; none by default):
 *
 * <ul>
 *   <li>{@code lease}: the drain lease excludes nobody. The apps' own drain scripts are loaded and patched so that
 *       every instance takes the lease whoever holds it (the cursor's compare-and-set stays), and put ahead of the
 *       apps' class path; the main code is untouched.
 *   <li>{@code write-rate}: the workers no longer share one write limit. The shared Bucket4j bucket's Redis key carries
 *       the rate ({@code WriteThrottle.sharedKey}), so the second worker, given a limit one higher, has a bucket of its
 *       own: two limits of about the same size, as if each instance kept its own.
 *   <li>{@code replica-wait}: {@code coupon.redis.min-replicas} 0 instead of 1 (admissions answered 202 before a
 *       replica has them).
 * </ul>
 */
final class ClusterStack implements AutoCloseable {

    static final int DRAIN_BATCH = FaultStack.DRAIN_BATCH;
    /** The workers' write limit, all instances together: low enough that two workers catching up reach it. */
    static final int WRITES_PER_SECOND = 200;

    static final String SWITCH_OFF = System.getProperty("failover.switch-off", "");

    /**
     * The stock shards of every event the failover scenarios create when given ({@code -Dfailover.shards=K}); without
     * it each scenario names its own, 1 or 3, so that one run shows failover with one shard and across shards spread
     * over the primaries (docs/architecture.md, "Stock shards"). With K > 1 the Redis scenario kills the primary of
     * the event's shard 0.
     */
    static int shards(int scenarios) {
        return Stack.shards("failover.shards", scenarios);
    }

    final PrivateRedisCluster redis;
    final KafkaCluster kafka;
    final TestDatabase database;
    final JdbcClient jdbc;
    final List<ChildJvm> apis = new ArrayList<>();
    final List<ChildJvm> workers = new ArrayList<>();
    private final Map<ChildJvm, Integer> ports = new HashMap<>();
    private final HttpClient probe =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    ClusterStack() throws Exception {
        if (!List.of("", "lease", "write-rate", "replica-wait").contains(SWITCH_OFF)) {
            throw new IllegalArgumentException(
                    "failover.switch-off: lease, write-rate or replica-wait, not " + SWITCH_OFF);
        }
        redis = new PrivateRedisCluster();
        kafka = new KafkaCluster();
        database = TestDatabase.create();
        jdbc = JdbcClient.create(new DriverManagerDataSource(database.url(), database.user(), database.password()));

        Map<String, Object> common = new HashMap<>(database.springProperties());
        common.put("logging.level.org.apache.kafka", "WARN");
        common.put("logging.level.org.apache.kafka.clients.consumer.internals.ConsumerCoordinator", "INFO");
        common.put("coupon.redis.cluster-nodes", redis.nodes());
        common.put("spring.kafka.bootstrap-servers", kafka.bootstrap());
        common.put("coupon.record.signing-key", Stack.RECORD_SIGNING_KEY);

        List<Path> apiClassPathFirst = SWITCH_OFF.equals("lease") ? List.of(leaselessDrainScripts()) : List.of();
        for (int i = 1; i <= 2; i++) {
            Map<String, Object> settings = new HashMap<>(common);
            settings.put("coupon.jwt.secret", Stack.JWT_SECRET);
            settings.put("coupon.human-check.secret", Stack.HUMAN_CHECK_SECRET);
            settings.put("coupon.draw.seed-key", Stack.DRAW_SEED_KEY);
            // the member limit stays on (in the coupon's slot, so it runs on the cluster); the whole crowd comes from
            // one address, which the address limit would mostly refuse
            settings.put("coupon.ratelimit.address-per-second", "0");
            settings.put("coupon.drain.max-batch", DRAIN_BATCH);
            settings.put("coupon.drain.tick", "100ms");
            // 20,000 requests per start (and a killed api starts again) are more than two shared cores can spare
            settings.put("coupon.warmup.requests", "0");
            settings.put("coupon.kafka.replication-factor", "3");
            settings.put("coupon.redis.min-replicas", SWITCH_OFF.equals("replica-wait") ? "0" : "1");
            apis.add(app("api-" + i, "-Xmx384m", apiClassPathFirst, ApiApplication.class.getName(), settings));
        }
        for (int i = 1; i <= 2; i++) {
            Map<String, Object> settings = new HashMap<>(common);
            settings.put("coupon.worker.max-batch", DRAIN_BATCH);
            settings.put("coupon.worker.topic-replication-factor", "3");
            settings.put(
                    "coupon.worker.max-writes-per-second",
                    i == 2 && SWITCH_OFF.equals("write-rate") ? WRITES_PER_SECOND + 1 : WRITES_PER_SECOND);
            // static members, as bin/up and compose run them: a restarted worker gets its partitions back at once
            settings.put("coupon.worker.instance-id", "failover-worker-" + i);
            settings.put("coupon.worker.session-timeout", "10s");
            workers.add(app("worker-" + i, "-Xmx256m", List.of(), IssuerWorkerApplication.class.getName(), settings));
        }

        // the first worker alone creates the topics (three replicas each); the others then find them
        try (var alone = ProcessKit.startingAlone()) {
            workers.get(0).start();
            awaitReady(workers.get(0), ProcessKit.START_UP);
            for (ChildJvm app : List.of(apis.get(0), apis.get(1), workers.get(1))) {
                app.start();
            }
            for (ChildJvm app : List.of(apis.get(0), apis.get(1), workers.get(1))) {
                awaitReady(app, ProcessKit.START_UP);
            }
        }
    }

    String url(ChildJvm api) {
        return "http://127.0.0.1:" + ports.get(api);
    }

    WebTestClient http(ChildJvm api) {
        return WebTestClient.bindToServer()
                .baseUrl(url(api))
                .responseTimeout(Duration.ofSeconds(30))
                .build();
    }

    /** The partition of the request topic a coupon's records go to (the producer's default partitioner, by key). */
    static int partitionOf(long couponId) {
        byte[] key = Topics.key(couponId).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        return Utils.toPositive(Utils.murmur2(key)) % 3;
    }

    /** Waits until the app is healthy ({@link ProcessKit#healthy}). */
    void awaitReady(ChildJvm app, Duration timeout) throws InterruptedException {
        ProcessKit.awaitHealthy(probe, app, port(app), timeout);
    }

    boolean ready(ChildJvm app) throws InterruptedException {
        return ProcessKit.healthy(probe, port(app));
    }

    private int port(ChildJvm app) {
        return ports.get(app);
    }

    long walletCount(long couponId) {
        return jdbc.sql("SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
    }

    /** The worker whose consumer holds {@code partition} of the request topic now (from the group's description). */
    ChildJvm workerOf(int partition) throws Exception {
        try (Admin admin = admin()) {
            var group = admin.describeConsumerGroups(List.of("coupon-issuer"))
                    .all()
                    .get()
                    .get("coupon-issuer");
            for (var member : group.members()) {
                if (member.assignment()
                        .topicPartitions()
                        .contains(new TopicPartition(Topics.ISSUE_REQUESTED, partition))) {
                    String instance = member.groupInstanceId().orElse("");
                    for (int i = 0; i < workers.size(); i++) {
                        if (instance.startsWith("failover-worker-" + (i + 1))) {
                            return workers.get(i);
                        }
                    }
                }
            }
        }
        throw new IllegalStateException("no worker holds partition " + partition);
    }

    /** The broker (0, 1, 2) that leads {@code partition} of the request topic now. */
    int leaderOf(int partition) throws Exception {
        try (Admin admin = admin()) {
            var topic = admin.describeTopics(List.of(Topics.ISSUE_REQUESTED))
                    .allTopicNames()
                    .get()
                    .get(Topics.ISSUE_REQUESTED);
            return topic.partitions().get(partition).leader().id() - 1;
        }
    }

    /** The replication factor and {@code min.insync.replicas} the apps gave the request topic. */
    String requestTopicReplication() throws Exception {
        try (Admin admin = admin()) {
            var topic = admin.describeTopics(List.of(Topics.ISSUE_REQUESTED))
                    .allTopicNames()
                    .get()
                    .get(Topics.ISSUE_REQUESTED);
            var resource = new org.apache.kafka.common.config.ConfigResource(
                    org.apache.kafka.common.config.ConfigResource.Type.TOPIC, Topics.ISSUE_REQUESTED);
            var config = admin.describeConfigs(List.of(resource)).all().get().get(resource);
            return "replicas " + topic.partitions().get(0).replicas().size() + ", min.insync.replicas "
                    + config.get("min.insync.replicas").value();
        }
    }

    /**
     * Where a coupon's issuance stands, for the message of a scenario that did not settle: its drain state in Redis
     * (cursor, done, effective rate and why, lease), the request partition's leader and in-sync replicas, the consumer
     * group's members and the partition's committed offset against its end, and the apps' last warnings (but
     * connection refusals). Each part is read on its own; one that fails says why instead.
     */
    String diagnosis(long couponId) {
        StringBuilder out = new StringBuilder("\n-- coupon ").append(couponId).append(" --");
        String partitionName = Topics.ISSUE_REQUESTED + "-" + partitionOf(couponId);
        part(
                out,
                "redis",
                () -> "cursor " + redis.command("GET", CouponKeys.cursor(couponId)) + ", queued "
                        + redis.command("ZCARD", CouponKeys.queue(couponId)) + ", done "
                        + redis.command("GET", CouponKeys.done(couponId)) + ", lease "
                        + redis.command("GET", CouponKeys.lease(couponId)) + ", meta "
                        + redis.command("HGETALL", CouponKeys.meta(couponId)).replace('\n', ' '));
        part(out, "kafka", () -> {
            // its calls' own time limit bounds close() too, which waits for calls still pending
            try (Admin admin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    kafka.bootstrap(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    15_000))) {
                TopicPartition partition = new TopicPartition(Topics.ISSUE_REQUESTED, partitionOf(couponId));
                var info = admin.describeTopics(List.of(Topics.ISSUE_REQUESTED))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get(Topics.ISSUE_REQUESTED)
                        .partitions()
                        .get(partition.partition());
                var group = admin.describeConsumerGroups(List.of("coupon-issuer"))
                        .all()
                        .get(10, TimeUnit.SECONDS)
                        .get("coupon-issuer");
                var committed = admin.listConsumerGroupOffsets("coupon-issuer")
                        .partitionsToOffsetAndMetadata()
                        .get(10, TimeUnit.SECONDS)
                        .get(partition);
                long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .all()
                        .get(10, TimeUnit.SECONDS)
                        .get(partition)
                        .offset();
                return partitionName + " leader " + info.leader() + " isr " + info.isr() + "; group "
                        + group.groupState() + ", coordinator " + group.coordinator() + ", members "
                        + group.members().stream()
                                .map(member -> member.groupInstanceId().orElse(member.consumerId()) + "="
                                        + member.assignment().topicPartitions())
                                .toList()
                        + "; committed " + (committed == null ? "none" : committed.offset()) + " of " + end;
            }
        });
        List<ChildJvm> apps = new ArrayList<>(apis);
        apps.addAll(workers);
        for (ChildJvm app : apps) {
            part(out, app.name() + (app.alive() ? "" : " (not running)"), () -> {
                List<String> warnings = Files.readAllLines(app.log()).stream()
                        .filter(line -> line.contains(" WARN ") || line.contains(" ERROR "))
                        // not the broker that was stopped on purpose, nor start-up notices
                        .filter(line -> !line.contains("NetworkClient") && !line.contains("SpringDoc"))
                        .map(line -> line.length() > 300 ? line.substring(0, 300) + "..." : line)
                        .toList();
                return "last warnings:\n    "
                        + String.join("\n    ", warnings.subList(Math.max(0, warnings.size() - 8), warnings.size()));
            });
        }
        return out.toString();
    }

    /** An administrator's client of the test's brokers. */
    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap()));
    }

    private interface Part {
        String read() throws Exception;
    }

    private static void part(StringBuilder out, String name, Part part) {
        out.append("\n").append(name).append(": ");
        try {
            out.append(part.read());
        } catch (Exception e) {
            out.append("(could not read: ").append(e).append(')');
        }
    }

    /** How many times each member's request of this coupon was published to Kafka, read from the topic itself. */
    Map<String, Integer> publications(long couponId) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Map<String, Integer> times = new HashMap<>();
        try (var consumer = new KafkaConsumer<String, String>(config)) {
            TopicPartition partition = new TopicPartition(Topics.ISSUE_REQUESTED, partitionOf(couponId));
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    if (Topics.key(couponId).equals(record.key())) {
                        String member = record.value().replaceAll(".*\"memberId\"\\s*:\\s*\"([^\"]+)\".*", "$1");
                        times.merge(member, 1, Integer::sum);
                    }
                }
            }
        }
        return times;
    }

    @Override
    public void close() throws Exception {
        List<AutoCloseable> parts = new ArrayList<>();
        parts.addAll(apis);
        parts.addAll(workers);
        parts.add(kafka);
        parts.add(redis);
        for (AutoCloseable part : parts) {
            try {
                if (part != null) {
                    part.close();
                }
            } catch (Exception e) {
                // close the rest anyway
            }
        }
        if (database != null) {
            database.close();
        }
    }

    private ChildJvm app(String name, String heap, List<Path> classPathFirst, String main, Map<String, Object> settings)
            throws IOException {
        int port = ProcessKit.freePort();
        settings.put("server.port", port);
        List<String> arguments = settings.entrySet().stream()
                .map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                .toList();
        ChildJvm app = new ChildJvm(name, List.of(heap), classPathFirst, main, arguments);
        ports.put(app, port);
        return app;
    }

    /**
     * The apps' own drain scripts with the lease check taken out (switch {@code lease}): every instance claims, renews
     * and advances whoever holds the lease; {@code drain_advance.lua} still moves the cursor only forward. Patched
     * from the scripts on the class path, so the rest of each script is whatever the api ships; a patch that no longer
     * applies fails here, not silently.
     */
    private static Path leaselessDrainScripts() throws IOException {
        Path dir = ChildJvm.LOGS.resolve("leaseless");
        Files.createDirectories(dir.resolve("scripts"));
        patch(dir, "scripts/drain_claim.lua", "if owner and owner ~= ARGV[1] then", "if false then");
        patch(dir, "scripts/drain_advance.lua", "if redis.call('GET', KEYS[1]) ~= ARGV[1] then", "if false then");
        patch(dir, "scripts/drain_renew.lua", "if redis.call('GET', KEYS[1]) ~= ARGV[1] then", "if false then");
        return dir;
    }

    private static void patch(Path dir, String script, String check, String replacement) throws IOException {
        String text = LuaScripts.text(script);
        if (!text.contains(check)) {
            throw new IllegalStateException(script + " no longer contains the lease check `" + check + "`");
        }
        Files.writeString(dir.resolve(script), text.replace(check, replacement));
    }
}
