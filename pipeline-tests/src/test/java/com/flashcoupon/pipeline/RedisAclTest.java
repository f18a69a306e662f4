package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The pipeline on a Redis that checks who writes: a server of the test's own started with the shipped ACL file
 * ({@code deploy/redis-users.acl}, passwords of the test's), the api as {@code coupon-api} (user and password given on
 * their own, {@code COUPON_REDIS_USER} and {@code COUPON_REDIS_PASSWORD}), the worker as {@code coupon-worker} (inside
 * the URL). Members are admitted and issued through every script both apps run; then each user is refused what only
 * the other may write, and a client without a password is refused everything.
 */
class RedisAclTest {

    private static final String API_PASSWORD = "api-password-for-the-acl-test";
    private static final String WORKER_PASSWORD = "worker-password-for-the-acl-test";
    private static final String ADMIN_PASSWORD = "admin-password-for-the-acl-test";

    private static PrivateRedis redis;
    private static Stack stack;

    @BeforeAll
    static void start() throws IOException {
        Path acl = Files.createTempFile("flash-coupon-users", ".acl");
        Files.writeString(acl, aclFile());
        redis = new PrivateRedis(List.of("--aclfile", acl.toString()));
        String url = "redis://127.0.0.1:" + redis.port();
        stack = new Stack(
                Map.of(
                        "spring.data.redis.url",
                        url,
                        "coupon.redis.user",
                        "coupon-api",
                        "coupon.redis.password",
                        API_PASSWORD,
                        "coupon.shards.max-served",
                        3),
                Map.of(
                        "spring.data.redis.url",
                        "redis://coupon-worker:" + WORKER_PASSWORD + "@127.0.0.1:" + redis.port()));
    }

    @AfterAll
    static void stop() throws InterruptedException {
        if (stack != null) {
            stack.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void shouldAdmitAndIssueWithEachAppAsItsOwnUserAndRefuseWhatTheOtherWrites() throws IOException {
        // the worker wrote each result into Redis as coupon-worker, the api read it there as coupon-api
        Crowd.Issued issued = Crowd.issuedOn(stack, "ACL", 50, 80, 16);
        long couponId = issued.couponId();
        List<Crowd.Answer> answers = issued.answers();
        String slot = "{cpn:" + couponId + "}";
        String admitted = answers.stream()
                .filter(answer -> answer.status() == 202)
                .findFirst()
                .orElseThrow()
                .memberId();
        as("coupon-worker", WORKER_PASSWORD, worker -> {
            assertThat(worker.hget(slot + ":result", admitted)).startsWith("I:");
            // what N1(c) of the review did with any Redis writer: a draw entrant, a sequence, a lease, a retirement
            assertRefused(() -> worker.zadd(slot + ":draw", 0, "sybil-1"));
            assertRefused(() -> worker.set(slot + ":seq", "0"));
            assertRefused(() -> worker.set(slot + ":lease", "mine"));
            assertRefused(() -> worker.del(slot + ":eligible"));
            assertRefused(() -> worker.eval(
                    "return redis.call('INCR', KEYS[1])", io.lettuce.core.ScriptOutputType.INTEGER, slot + ":seq"));
            assertRefused(() -> worker.flushall());
        });
        as("coupon-api", API_PASSWORD, api -> {
            assertRefused(() -> api.set("coupon:worker:write-rate:1", "0"));
            assertRefused(() -> api.flushall());
            assertRefused(() -> api.keys("*"));
            assertRefused(() -> api.configSet("appendonly", "no"));
        });
        // a client without a user is refused its first command; asked on a plain socket, since a client library's
        // handshake under load may fail in its own words before it reads the server's
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", redis.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write("PING\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            String reply = new java.io.BufferedReader(new java.io.InputStreamReader(
                            socket.getInputStream(), java.nio.charset.StandardCharsets.US_ASCII))
                    .readLine();
            assertThat(reply).startsWith("-NOAUTH");
        }
        assertThatThrownBy(() -> as("coupon-worker", API_PASSWORD, worker -> worker.ping()))
                .hasStackTraceContaining("WRONGPASS");
    }

    /**
     * An event of three stock shards: the worker writes each result on the member's home shard (and reads the shard's
     * stock) as coupon-worker, the api reads it there.
     */
    @Test
    void shouldIssueAnEventOfSeveralStockShardsWithEachAppAsItsOwnUser() {
        Crowd.issuedOn(stack, "ACL-sharded", 30, 40, 8, 3);
    }

    /** The shipped ACL file with this test's passwords, as bin/lib/redis-acl.sh writes it with a deployment's. */
    static String aclFile() throws IOException {
        Path shipped = DeploymentFilesTest.repositoryRoot().resolve("deploy/redis-users.acl");
        StringBuilder acl = new StringBuilder();
        for (String line : Files.readAllLines(shipped)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            acl.append(line.replace("@API_PASSWORD_SHA256@", sha256(API_PASSWORD))
                            .replace("@WORKER_PASSWORD_SHA256@", sha256(WORKER_PASSWORD))
                            .replace("@ADMIN_PASSWORD_SHA256@", sha256(ADMIN_PASSWORD)))
                    .append('\n');
        }
        return acl.toString();
    }

    private static void as(String user, String password, Consumer<RedisCommands<String, String>> work) {
        RedisURI uri = RedisURI.builder()
                .withHost("127.0.0.1")
                .withPort(redis.port())
                .withAuthentication(user, password)
                .build();
        try (RedisClient client = RedisClient.create(uri);
                StatefulRedisConnection<String, String> connection = client.connect()) {
            work.accept(connection.sync());
        }
    }

    private static void assertRefused(org.assertj.core.api.ThrowableAssert.ThrowingCallable write) {
        assertThatThrownBy(write).hasMessageContaining("NOPERM");
    }

    private static String sha256(String password) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
