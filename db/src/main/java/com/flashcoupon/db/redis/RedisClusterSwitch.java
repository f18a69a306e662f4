package com.flashcoupon.db.redis;

import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * Switches both apps to a Redis Cluster when {@code coupon.redis.cluster-nodes} ({@code COUPON_REDIS_CLUSTER_NODES},
 * comma-separated {@code host:port}) is set: it becomes {@code spring.data.redis.cluster.nodes}, and Spring Boot then
 * builds Lettuce's cluster client, with the topology refresh the apps' configuration turns on (adaptive, on MOVED and
 * failed connections, and periodic), commands to the masters. Unset, the apps use the standalone Redis of
 * {@code spring.data.redis.url}, as they do locally.
 *
 * <p>An environment post-processor and not a property of its own, because Spring Boot picks the cluster mode by whether
 * {@code spring.data.redis.cluster} is bound at all: an empty value bound from an unset variable would already ask for a
 * cluster of no nodes. Both apps share it through this module (registered in {@code META-INF/spring.factories}).
 */
public final class RedisClusterSwitch implements EnvironmentPostProcessor, Ordered {

    public static final String NODES = "coupon.redis.cluster-nodes";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String nodes = environment.getProperty(NODES, "").strip();
        if (!nodes.isEmpty()) {
            environment
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "couponRedisCluster", Map.of("spring.data.redis.cluster.nodes", nodes)));
        }
    }

    /** After the configuration files are read, which map the environment variable to the property. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
