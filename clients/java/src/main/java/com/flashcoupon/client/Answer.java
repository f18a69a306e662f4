package com.flashcoupon.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.time.Instant;
import java.util.Date;
import okhttp3.Headers;

/** One HTTP answer, read whole (the api's answers are a few hundred bytes). */
final class Answer {

    final int code;
    final Headers headers;
    final String body;
    private JsonObject json;

    Answer(int code, Headers headers, String body) {
        this.code = code;
        this.headers = headers;
        this.body = body;
    }

    /** The body as a JSON object; an empty object when it is not one. */
    JsonObject json() {
        if (json == null) {
            json = object(body);
        }
        return json;
    }

    static JsonObject object(String text) {
        try {
            JsonElement element = JsonParser.parseString(text == null ? "" : text);
            return element.isJsonObject() ? element.getAsJsonObject() : new JsonObject();
        } catch (RuntimeException e) {
            return new JsonObject();
        }
    }

    /** The problem's stable {@code code}; empty when the body is not a problem. */
    String problemCode() {
        return Json.text(json(), "code", "");
    }

    /**
     * {@code Retry-After} in milliseconds: whole seconds, or an HTTP date measured against the answer's own {@code
     * Date}; 0 when absent or unreadable.
     */
    long retryAfterMillis() {
        String value = headers.get("Retry-After");
        if (value == null || value.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Long.parseLong(value.strip()) * 1000);
        } catch (NumberFormatException notSeconds) {
            Date at = headers.getDate("Retry-After");
            if (at == null) {
                return 0;
            }
            return Math.max(0, at.getTime() - serverNow().toEpochMilli());
        }
    }

    /** The server's clock when it answered (its {@code Date} header), else this machine's. */
    Instant serverNow() {
        Date date = headers.getDate("Date");
        return date != null ? date.toInstant() : Instant.now();
    }

    /** {@code X-Coupon-Poll-After} in milliseconds, or {@code fallback} without one. */
    long pollAfterMillis(long fallback) {
        String value = headers.get("X-Coupon-Poll-After");
        try {
            return value == null ? fallback : Math.max(1, Long.parseLong(value.strip())) * 1000;
        } catch (NumberFormatException e) {
            return fallback;
        }
    }
}
