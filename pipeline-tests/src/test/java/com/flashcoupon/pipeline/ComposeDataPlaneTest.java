package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * docker-compose.yml's Redis checks who writes (read, since Docker cannot run where the tests run): it starts with the
 * shipped ACL file written by bin/lib/redis-acl.sh, its health check authenticates, and each app is its own ACL user
 * with a password compose requires (no password from this repository), the api's and the worker's different.
 */
class ComposeDataPlaneTest {

    @Test
    void eachAppIsItsOwnRedisUserWithARequiredPassword() throws IOException {
        Map<String, Object> services = services();
        Map<String, Object> redis = service(services, "redis");
        String command = String.join(" ", list(redis.get("command")));
        assertThat(command).contains("redis-acl.sh", "/flash-coupon/redis-users.acl", "--aclfile");
        assertThat(list(redis.get("volumes")))
                .contains(
                        "./bin/lib/redis-acl.sh:/flash-coupon/redis-acl.sh:ro",
                        "./deploy/redis-users.acl:/flash-coupon/redis-users.acl:ro");
        assertThat(String.join(" ", list(((Map<?, ?>) redis.get("healthcheck")).get("test"))))
                .contains("--user coupon-admin");

        Map<?, ?> api = (Map<?, ?>) service(services, "api").get("environment");
        Map<?, ?> worker = (Map<?, ?>) service(services, "worker").get("environment");
        assertThat(api.get("COUPON_REDIS_USER")).isEqualTo("coupon-api");
        assertThat(worker.get("COUPON_REDIS_USER")).isEqualTo("coupon-worker");
        assertThat((String) api.get("COUPON_REDIS_PASSWORD")).startsWith("${COUPON_REDIS_API_PASSWORD:?");
        assertThat((String) worker.get("COUPON_REDIS_PASSWORD")).startsWith("${COUPON_REDIS_WORKER_PASSWORD:?");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> services() throws IOException {
        try (Reader reader =
                Files.newBufferedReader(DeploymentFilesTest.repositoryRoot().resolve("docker-compose.yml"))) {
            return (Map<String, Object>)
                    new Yaml().<Map<String, Object>>load(reader).get("services");
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> service(Map<String, Object> services, String name) {
        return (Map<String, Object>) services.get(name);
    }

    private static List<String> list(Object value) {
        return ((List<?>) value).stream().map(String::valueOf).toList();
    }
}
