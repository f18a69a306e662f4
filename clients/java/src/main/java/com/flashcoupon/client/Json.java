package com.flashcoupon.client;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.time.Instant;

/** Reading the api's small JSON bodies field by field, null-safe. */
final class Json {

    private Json() {}

    static String text(JsonObject object, String field, String fallback) {
        JsonElement value = object.get(field);
        return value == null || value.isJsonNull() || !value.isJsonPrimitive() ? fallback : value.getAsString();
    }

    static Long number(JsonObject object, String field) {
        JsonElement value = object.get(field);
        if (value == null || value.isJsonNull() || !value.isJsonPrimitive()) {
            return null;
        }
        try {
            return value.getAsLong();
        } catch (RuntimeException e) {
            return null;
        }
    }

    static double decimal(JsonObject object, String field) {
        JsonElement value = object.get(field);
        return value == null || value.isJsonNull() ? 0 : value.getAsDouble();
    }

    static Instant instant(JsonObject object, String field) {
        String value = text(object, field, null);
        try {
            return value == null ? null : Instant.parse(value);
        } catch (RuntimeException e) {
            return null;
        }
    }

    static JsonObject object(JsonObject object, String field) {
        JsonElement value = object.get(field);
        return value != null && value.isJsonObject() ? value.getAsJsonObject() : null;
    }
}
