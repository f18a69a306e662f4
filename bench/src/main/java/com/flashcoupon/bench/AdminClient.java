package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The operator's side of docs/http-api.md that the benchmark needs: create, re-rate, close a coupon and read its counters. */
final class AdminClient {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final LoadRunner http;
    private final String token;
    private final JsonMapper json = JsonMapper.builder().build();

    AdminClient(LoadRunner http, String operatorToken) {
        this.http = http;
        this.token = operatorToken;
    }

    /** A coupon open from now (whole seconds, UTC), no close; its id. */
    long create(String name, long totalQuantity, int issueRatePerSecond) {
        String body = "{\"name\":\"" + name + "\",\"totalQuantity\":" + totalQuantity + ",\"openAt\":\""
                + Instant.now().truncatedTo(ChronoUnit.SECONDS) + "\",\"closeAt\":null,\"issueRatePerSecond\":"
                + issueRatePerSecond + ",\"validDays\":30}";
        LoadRunner.Answer answer = call(HttpCall.post("/admin/v1/coupons", token, body));
        JsonNode id = parse(answer).path("id");
        if (answer.status() != 201 || !id.canConvertToLong()) {
            throw new IllegalStateException(
                    "creating a coupon: expected 201 with an id, got " + answer.status() + " " + answer.body());
        }
        return id.longValue();
    }

    void patchRate(long couponId, int issueRatePerSecond) {
        LoadRunner.Answer answer = call(new HttpCall(
                HttpMethod.PATCH,
                "/admin/v1/coupons/" + couponId,
                token,
                "{\"issueRatePerSecond\":" + issueRatePerSecond + "}"));
        if (answer.status() != 200) {
            throw new IllegalStateException("PATCH coupon " + couponId + ": " + answer.status() + " " + answer.body());
        }
    }

    void close(long couponId) {
        LoadRunner.Answer answer = call(HttpCall.post("/admin/v1/coupons/" + couponId + "/close", token));
        if (answer.status() >= 300) {
            throw new IllegalStateException(
                    "closing coupon " + couponId + ": " + answer.status() + " " + answer.body());
        }
    }

    /** The {@code stats} object of {@code GET /admin/v1/coupons/{id}}. */
    JsonNode stats(long couponId) {
        LoadRunner.Answer answer = call(HttpCall.get("/admin/v1/coupons/" + couponId, token));
        if (answer.status() != 200) {
            throw new IllegalStateException(
                    "reading coupon " + couponId + ": " + answer.status() + " " + answer.body());
        }
        return parse(answer).path("stats");
    }

    /** One GET without a token; the answer's status, or -1 when nothing answered. */
    int probe(String path) {
        try {
            return http.send(HttpCall.get(path, null))
                    .block(Duration.ofSeconds(5))
                    .status();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private JsonNode parse(LoadRunner.Answer answer) {
        try {
            return json.readTree(answer.body() == null || answer.body().isEmpty() ? "{}" : answer.body());
        } catch (RuntimeException e) {
            return json.missingNode();
        }
    }

    private LoadRunner.Answer call(HttpCall call) {
        return http.send(call).block(CALL_TIMEOUT);
    }
}
