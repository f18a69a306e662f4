package com.flashcoupon.api.support;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * What a member request could have written: the member-facing MySQL tables row by row and the names of the Redis keys
 * (drain and draw leases and rate-limit buckets left out: they come and go on their own). Two equal snapshots around a refused request show it wrote
 * nothing.
 */
public record WriteSnapshot(List<String> wallets, List<String> devices, Set<String> redisKeys) {

    public static WriteSnapshot take(JdbcClient jdbc, StringRedisTemplate redis) {
        List<String> wallets = jdbc.sql("SELECT CONCAT_WS('|', id, coupon_id, member_id, issued_at, expires_at,"
                        + " COALESCE(used_at, '-'), COALESCE(order_id, '-')) FROM coupon_wallet ORDER BY id")
                .query(String.class)
                .list();
        List<String> devices = jdbc.sql("SELECT CONCAT_WS('|', device_token, member_id, platform, updated_at)"
                        + " FROM member_device ORDER BY device_token")
                .query(String.class)
                .list();
        Set<String> keys = new TreeSet<>(redis.keys("*"));
        // drain leases, the draw job's lease on a draw (it ran late under a CPU hog, between two snapshots of a test
        // about another event) and rate-limit buckets, overall and in an event's slot ({cpn:ID}:rl:..., which expire
        // by themselves: one made by an earlier test class expired between two snapshots in a full run), come and go
        // on their own; so do a retired event's marks ({cpn:ID}:retired, which expire: an earlier test class's expired
        // between two snapshots in a full run), written by the retirement alone
        keys.removeIf(key -> key.endsWith(":lease")
                || key.endsWith(":drawing")
                || key.endsWith(":retired")
                || key.startsWith("rl:")
                || key.contains("}:rl:"));
        return new WriteSnapshot(wallets, devices, keys);
    }
}
