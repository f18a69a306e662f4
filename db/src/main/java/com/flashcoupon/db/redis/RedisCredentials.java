package com.flashcoupon.db.redis;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Map;
import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.Ordered;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

/**
 * The Redis ACL user of an app given on its own ({@code coupon.redis.user} and {@code coupon.redis.password}, from
 * {@code COUPON_REDIS_USER} and {@code COUPON_REDIS_PASSWORD}, for instance from a Kubernetes Secret) instead of inside
 * {@code COUPON_REDIS_URL} ({@code redis://user:password@host:port}). Spring Boot takes the credentials from the URL
 * whenever a URL is set, a URL without any included, so they are written into the URL, which then serves the standalone
 * Redis and a Redis Cluster alike (Boot reads a cluster's credentials from it too). TLS is Boot's own: a
 * {@code rediss://} URL or {@code spring.data.redis.ssl.enabled} ({@code COUPON_REDIS_TLS}).
 */
public final class RedisCredentials implements EnvironmentPostProcessor, Ordered {

    public static final String USER = "coupon.redis.user";
    public static final String PASSWORD = "coupon.redis.password";
    static final String URL = "spring.data.redis.url";

    @Override
    public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
        String user = environment.getProperty(USER, "").strip();
        String password = environment.getProperty(PASSWORD, "");
        String url = environment.getProperty(URL, "");
        if ((user.isEmpty() && password.isEmpty()) || url.isBlank()) {
            return;
        }
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource(
                        "couponRedisCredentials", Map.of(URL, withCredentials(url, user, password))));
    }

    /** The URL with this user and password (an empty user: Redis' {@code default}), any it carried replaced. */
    static String withCredentials(String url, String user, String password) {
        try {
            URI uri = new URI(url);
            String userInfo = (user.isEmpty() ? "default" : user) + ":" + password;
            return new URI(
                            uri.getScheme(),
                            userInfo,
                            uri.getHost(),
                            uri.getPort(),
                            uri.getPath(),
                            uri.getQuery(),
                            uri.getFragment())
                    .toASCIIString();
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("spring.data.redis.url is not a URL", e);
        }
    }

    /** After the configuration files are read, which map the environment variables to the properties. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }
}
