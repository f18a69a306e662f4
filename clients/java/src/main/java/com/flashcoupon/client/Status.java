package com.flashcoupon.client;

import com.google.gson.JsonObject;

/** The status resource of docs/http-api.md, as far as a client acts on it. */
record Status(
        long couponId,
        String status,
        Long position,
        Long estimatedWaitMillis,
        Long walletCouponId,
        String failureReason,
        ClaimUpdate.Draw draw) {

    static Status of(JsonObject json, long couponId) {
        Long id = Json.number(json, "couponId");
        Long millis = Json.number(json, "estimatedWaitMillis");
        if (millis == null) {
            Long seconds = Json.number(json, "estimatedWaitSeconds");
            millis = seconds == null ? null : seconds * 1000;
        }
        JsonObject draw = Json.object(json, "draw");
        return new Status(
                id == null ? couponId : id,
                Json.text(json, "status", "WAITING"),
                Json.number(json, "position"),
                millis,
                Json.number(json, "walletCouponId"),
                Json.text(json, "failureReason", null),
                draw == null
                        ? null
                        : new ClaimUpdate.Draw(
                                Json.text(draw, "state", "OPEN"),
                                orZero(Json.number(draw, "entrants")),
                                orZero(Json.number(draw, "places")),
                                Json.decimal(draw, "chance"),
                                Json.instant(json, "drawAt")));
    }

    private static long orZero(Long value) {
        return value == null ? 0 : value;
    }

    boolean isFinal() {
        return "ISSUED".equals(status) || "FAILED".equals(status);
    }

    ClaimResult result() {
        return "ISSUED".equals(status) && walletCouponId != null
                ? ClaimResult.issued(couponId, walletCouponId)
                : ClaimResult.failed(couponId, failureReason == null ? "UNKNOWN" : failureReason);
    }

    ClaimUpdate update() {
        return new ClaimUpdate(couponId, ClaimUpdate.Phase.WAITING, position, estimatedWaitMillis, draw, null);
    }
}
