package com.flashcoupon.bench;

import com.flashcoupon.loadgen.crowd.JsonBodies;
import tools.jackson.databind.json.JsonMapper;

/** Outcome labels of HTTP answers: the status, and for problems the contract's {@code code} ("409 SOLD_OUT"). */
final class Labels {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private Labels() {}

    static String of(int status, String body) {
        String code = status < 400 ? "" : JsonBodies.text(JSON, body, "code");
        return code.isEmpty() ? Integer.toString(status) : status + " " + code;
    }
}
