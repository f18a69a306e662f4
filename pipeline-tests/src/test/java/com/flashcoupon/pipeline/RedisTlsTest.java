package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * TLS to Redis is a setting: a server of the test's own that speaks TLS only (a certificate of its own, made with
 * openssl), the api told by {@code COUPON_REDIS_TLS=true}, the worker by a {@code rediss://} URL as well, both trusting the
 * certificate through a Spring Boot SSL bundle (which Boot applies only with the setting on). Members are admitted and issued through it.
 */
class RedisTlsTest {

    private static PrivateRedis redis;
    private static Stack stack;

    @BeforeAll
    static void start() throws Exception {
        Path dir = Files.createTempDirectory("flash-coupon-redis-tls");
        Process openssl = new ProcessBuilder(
                        "openssl",
                        "req",
                        "-x509",
                        "-newkey",
                        "rsa:2048",
                        "-nodes",
                        "-days",
                        "1",
                        "-keyout",
                        dir.resolve("key.pem").toString(),
                        "-out",
                        dir.resolve("cert.pem").toString(),
                        "-subj",
                        "/CN=127.0.0.1",
                        "-addext",
                        "subjectAltName=IP:127.0.0.1")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("openssl.log").toFile())
                .start();
        assertThat(openssl.waitFor()).as("openssl made a certificate").isZero();
        redis = new PrivateRedis(List.of(
                "--port",
                "0",
                "--tls-port",
                "{port}",
                "--tls-cert-file",
                dir.resolve("cert.pem").toString(),
                "--tls-key-file",
                dir.resolve("key.pem").toString(),
                "--tls-ca-cert-file",
                dir.resolve("cert.pem").toString(),
                "--tls-auth-clients",
                "no"));
        Map<String, Object> trust = Map.of(
                "spring.ssl.bundle.pem.redis.truststore.certificate",
                "file:" + dir.resolve("cert.pem"),
                "spring.data.redis.ssl.bundle",
                "redis",
                // a TLS handshake on a cold JVM took more than the 2 s a connection's start (connect and handshake) is
                // given by default when
                // both cores were busy (a CPU hog beside the suite: the api did not start)
                "spring.data.redis.timeout",
                "10s",
                "spring.data.redis.connect-timeout",
                "10s");
        Map<String, Object> api = new java.util.HashMap<>(trust);
        api.put("spring.data.redis.url", "redis://127.0.0.1:" + redis.port());
        api.put("COUPON_REDIS_TLS", "true");
        Map<String, Object> worker = new java.util.HashMap<>(trust);
        // a rediss:// URL alone trusts the JVM's certificate authorities; a bundle counts with the setting on
        worker.put("spring.data.redis.url", "rediss://127.0.0.1:" + redis.port());
        worker.put("COUPON_REDIS_TLS", "true");
        stack = new Stack(api, worker);
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
    void shouldAdmitAndIssueOverTls() {
        Crowd.issuedOn(stack, "TLS", 20, 30, 8);
    }
}
