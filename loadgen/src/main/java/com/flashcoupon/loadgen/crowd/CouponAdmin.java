package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import com.flashcoupon.loadgen.engine.LoadRunner.Answer;
import io.netty.handler.codec.http.HttpMethod;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The operator's side of docs/http-api.md that {@code crowd} and {@code bin/bench} need: create, re-rate and close a
 * coupon, read its live counters. Blocking calls, one at a time; a call that fails or is not answered as documented
 * throws {@link ApiException}.
 */
public final class CouponAdmin {

    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final LoadRunner http;
    private final JsonMapper json;
    private final String operatorToken;

    public CouponAdmin(LoadRunner http, JsonMapper json, String operatorToken) {
        this.http = http;
        this.json = json;
        this.operatorToken = operatorToken;
    }

    /** {@code POST /admin/v1/coupons}, open from now (whole seconds, UTC), no close; returns the new coupon's id. */
    public long create(String name, long totalQuantity, int issueRatePerSecond) {
        return create(name, totalQuantity, issueRatePerSecond, 0);
    }

    /**
     * The same with a fair start: the members who ask within the first {@code windowSeconds} are placed by a draw
     * when the window ends ({@code queueing} RANDOMIZED_START); 0 for first come, first served.
     */
    public long create(String name, long totalQuantity, int issueRatePerSecond, int windowSeconds) {
        return create(name, totalQuantity, issueRatePerSecond, windowSeconds, 0);
    }

    /** The same with a proof-of-work check of {@code proofBits} (0: none). */
    public long create(String name, long totalQuantity, int issueRatePerSecond, int windowSeconds, int proofBits) {
        return create(name, totalQuantity, issueRatePerSecond, windowSeconds, proofBits, 1);
    }

    /** The same with its admission state over {@code stockShards} Redis hash slots (1: the default, not sent). */
    public long create(
            String name,
            long totalQuantity,
            int issueRatePerSecond,
            int windowSeconds,
            int proofBits,
            int stockShards) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("name", name);
        body.put("totalQuantity", totalQuantity);
        body.put("openAt", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        body.put("closeAt", null);
        body.put("issueRatePerSecond", issueRatePerSecond);
        body.put("validDays", 30);
        if (windowSeconds > 0) {
            body.put("queueing", "RANDOMIZED_START");
            body.put("queueingWindowSeconds", windowSeconds);
        }
        if (stockShards > 1) {
            body.put("stockShards", stockShards);
        }
        if (proofBits > 0) {
            body.put("humanCheck", Map.of("type", "PROOF_OF_WORK", "difficultyBits", proofBits));
        }
        Answer answer = call(HttpCall.post("/admin/v1/coupons", operatorToken, json.writeValueAsString(body)));
        JsonNode id = JsonBodies.parse(json, answer.body()).path("id");
        if (answer.status() != 201 || !id.canConvertToLong()) {
            throw new ApiException(
                    "creating the coupon: expected 201 with an id, got " + answer.status() + " " + answer.body());
        }
        return id.longValue();
    }

    /** {@code PATCH /admin/v1/coupons/{id}} with a new {@code issueRatePerSecond}. */
    public void patchRate(long couponId, int issueRatePerSecond) {
        String body = json.writeValueAsString(Map.of("issueRatePerSecond", issueRatePerSecond));
        Answer answer = call(new HttpCall(HttpMethod.PATCH, "/admin/v1/coupons/" + couponId, operatorToken, body));
        if (answer.status() != 200) {
            throw new ApiException("PATCH coupon " + couponId + ": got " + answer.status() + " " + answer.body());
        }
    }

    /** {@code POST /admin/v1/coupons/{id}/close}. */
    public void close(long couponId) {
        Answer answer = call(HttpCall.post("/admin/v1/coupons/" + couponId + "/close", operatorToken));
        if (answer.status() >= 300) {
            throw new ApiException("closing coupon " + couponId + ": got " + answer.status() + " " + answer.body());
        }
    }

    /** {@code GET /admin/v1/coupons/{id}}'s {@code draw.state} ({@code OPEN}, {@code DRAWING}, {@code MADE}), or "". */
    public String drawState(long couponId) {
        Answer answer = call(HttpCall.get("/admin/v1/coupons/" + couponId, operatorToken));
        if (answer.status() != 200) {
            throw new ApiException("reading coupon " + couponId + ": got " + answer.status() + " " + answer.body());
        }
        return JsonBodies.parse(json, answer.body()).path("draw").path("state").asString("");
    }

    /** {@code GET /admin/v1/coupons/{id}}: the coupon's counters. */
    public CouponStats stats(long couponId) {
        Answer answer = call(HttpCall.get("/admin/v1/coupons/" + couponId, operatorToken));
        if (answer.status() != 200) {
            throw new ApiException("reading coupon " + couponId + ": got " + answer.status() + " " + answer.body());
        }
        JsonNode stats = JsonBodies.parse(json, answer.body()).path("stats");
        return new CouponStats(
                stats.path("admitted").asLong(0),
                stats.path("published").asLong(0),
                stats.path("issued").asLong(0),
                stats.path("failed").asLong(0),
                stats.path("deadLettered").asLong(0));
    }

    private Answer call(HttpCall call) {
        try {
            return http.send(call).block(CALL_TIMEOUT);
        } catch (RuntimeException e) {
            throw new ApiException(call.method() + " " + call.path() + " failed: " + LoadRunner.describe(e), e);
        }
    }

    /** A coupon's live counters. */
    public record CouponStats(long admitted, long published, long issued, long failed, long deadLettered) {

        /** Every admitted request has a result: issued or failed. */
        public boolean drained() {
            return issued + failed == admitted;
        }
    }

    /** The api could not be reached or did not answer as docs/http-api.md says. */
    public static final class ApiException extends RuntimeException {
        ApiException(String message) {
            super(message);
        }

        ApiException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
