package com.flashcoupon.loadgen.crowd;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reads answer bodies leniently: a body that is empty or not JSON reads as a missing node, whose fields are absent. */
public final class JsonBodies {

    private JsonBodies() {}

    public static JsonNode parse(JsonMapper json, String body) {
        if (body == null || body.isEmpty()) {
            return json.missingNode();
        }
        try {
            return json.readTree(body);
        } catch (JacksonException e) {
            return json.missingNode();
        }
    }

    /** A string field of the body, or "" when absent or not a string. */
    public static String text(JsonMapper json, String body, String field) {
        JsonNode node = parse(json, body).path(field);
        return node.isString() ? node.stringValue() : "";
    }
}
