package com.flashcoupon.pipeline;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/** What the stack takes: keys and bytes in Redis, heap in this JVM (where the api and the worker run). */
final class Footprint {

    /** {@code MEMORY USAGE key SAMPLES 0} (every element counted) summed over the keys, in one round trip. */
    private static final RedisScript<Long> MEMORY_USAGE = RedisScript.of(
            "local total = 0 for i = 1, #KEYS do total = total + (redis.call('MEMORY', 'USAGE', KEYS[i], 'SAMPLES',"
                    + " '0') or 0) end return total",
            Long.class);

    private Footprint() {}

    static List<String> presentKeys(StringRedisTemplate redis, List<String> keys) {
        List<String> present = new ArrayList<>();
        for (String key : keys) {
            if (Boolean.TRUE.equals(redis.hasKey(key))) {
                present.add(key);
            }
        }
        return present;
    }

    /** Keys in the template's Redis database. */
    static long keys(StringRedisTemplate redis) {
        return redis.execute(
                (RedisCallback<Long>) connection -> connection.serverCommands().dbSize());
    }

    static long bytes(StringRedisTemplate redis, List<String> keys) {
        Long total = redis.execute(MEMORY_USAGE, keys);
        return total == null ? 0 : total;
    }

    /** Used heap after collections, once it stops falling. */
    static long settledHeap() {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }
}
