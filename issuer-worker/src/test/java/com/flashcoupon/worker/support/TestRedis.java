package com.flashcoupon.worker.support;

import io.lettuce.core.RedisClient;

/**
 * The real Redis of the tests: {@code COUPON_TEST_REDIS_URL}, by default database 9 of the local server. Never
 * database 0, which bin/up's apps use.
 */
public final class TestRedis {

    private static final String URL = url(System.getenv("COUPON_TEST_REDIS_URL"));

    private TestRedis() {}

    public static String url() {
        return URL;
    }

    /** Empties the test database; call it at the start of each test class. */
    public static void flush() {
        RedisClient client = RedisClient.create(URL);
        try (var connection = client.connect()) {
            connection.sync().flushdb();
        } finally {
            client.shutdown();
        }
    }

    private static String url(String configured) {
        String url = configured == null || configured.isBlank() ? "redis://127.0.0.1:6379/9" : configured;
        if (url.matches("rediss?://[^/]*(/0)?/?")) {
            throw new IllegalStateException("tests never use Redis database 0: " + url);
        }
        return url;
    }
}
