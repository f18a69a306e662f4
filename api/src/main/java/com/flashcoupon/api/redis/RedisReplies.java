package com.flashcoupon.api.redis;

import java.util.List;

/** Reads the array replies of our Lua scripts (integers arrive as Long, strings as String). */
public final class RedisReplies {

    private RedisReplies() {}

    public static long number(List<?> reply, int index) {
        Object value = reply.get(index);
        if (value instanceof Number number) {
            return number.longValue();
        }
        return value == null ? 0 : Long.parseLong(value.toString());
    }

    public static String text(List<?> reply, int index) {
        Object value = reply.get(index);
        if (value instanceof byte[] bytes) {
            return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
        }
        return value == null ? "" : value.toString();
    }
}
