package com.flashcoupon.api.web;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** An expected outcome that the api answers with a problem (not found, sold out, ...). Built by static factories. */
public class ApiException extends RuntimeException {

    private final ErrorCode code;
    private final long retryAfterSeconds;
    private final Map<String, Object> properties;

    private ApiException(ErrorCode code, String detail, long retryAfterSeconds, Map<String, Object> properties) {
        super(detail, null, false, false);
        this.code = code;
        this.retryAfterSeconds = retryAfterSeconds;
        this.properties = properties;
    }

    private ApiException(ErrorCode code, String detail, long retryAfterSeconds) {
        this(code, detail, retryAfterSeconds, Map.of());
    }

    private ApiException(ErrorCode code, String detail) {
        this(code, detail, 0);
    }

    public ErrorCode code() {
        return code;
    }

    /** The {@code Retry-After} to answer with, in seconds; 0 for none. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** The problem's members beyond the standard ones and {@code code} (docs/http-api.md names each), in order. */
    public Map<String, Object> properties() {
        return properties;
    }

    /** The same problem with one more member, such as {@code check} or {@code cap}. */
    public ApiException with(String name, Object value) {
        var more = new LinkedHashMap<>(properties);
        more.put(name, value);
        return new ApiException(code, getMessage(), retryAfterSeconds, Collections.unmodifiableMap(more));
    }

    public static ApiException of(ErrorCode code, String detail) {
        return new ApiException(code, detail);
    }

    public static ApiException couponNotFound(long couponId) {
        return of(ErrorCode.COUPON_NOT_FOUND, "Coupon " + couponId + " does not exist.");
    }

    public static ApiException requestNotFound(long couponId) {
        return of(ErrorCode.REQUEST_NOT_FOUND, "You have not asked for coupon " + couponId + ".");
    }

    public static ApiException soldOut(long couponId) {
        return of(ErrorCode.SOLD_OUT, "Coupon " + couponId + " is sold out.");
    }

    public static ApiException notOpenYet(long couponId) {
        return of(ErrorCode.NOT_OPEN, "Coupon " + couponId + " is not open yet.");
    }

    public static ApiException closed(long couponId) {
        return of(ErrorCode.NOT_OPEN, "Coupon " + couponId + " is closed.");
    }

    public static ApiException retired(long couponId) {
        return of(ErrorCode.RETIRED, "Coupon " + couponId + " is retired; its settings no longer change.");
    }

    public static ApiException drawNotMade(long couponId, boolean hasDraw) {
        return of(
                ErrorCode.DRAW_NOT_MADE,
                hasDraw
                        ? "The draw of coupon " + couponId + " is not made yet; its entrants are exported once it is."
                        : "Coupon " + couponId + " is first come, first served: it has no draw.");
    }

    public static ApiException unavailable(String what) {
        return of(ErrorCode.UNAVAILABLE, what + " is unavailable; nothing was accepted. Try again shortly.");
    }

    /**
     * Redis lost the coupon and another call is putting back what MySQL knows of it: nothing was decided, and asking
     * again in a second finds it restored.
     */
    public static ApiException restoring(long couponId) {
        return new ApiException(
                ErrorCode.UNAVAILABLE,
                "Coupon " + couponId + " is being restored after a Redis loss; nothing was accepted. Try again in a"
                        + " second.",
                1);
    }

    /**
     * Redis took the admission script but its answer was lost (a time-out, a connection dropped mid-command): the
     * member may have been admitted. Asking again is safe and tells: 200 with the position if so, 202 if not.
     */
    public static ApiException admissionOutcomeUnknown(long couponId) {
        return of(
                ErrorCode.UNAVAILABLE,
                "The admission service did not answer in time, so whether your request for coupon " + couponId
                        + " was accepted is unknown. Ask GET /api/v1/coupons/" + couponId
                        + "/issue-requests/me, or send the request again: it never admits twice, and answers 200"
                        + " with your position if you were admitted.");
    }

    /**
     * The admission was written on Redis' primary, but did not reach the replicas it must reach before a 202
     * ({@code COUPON_REDIS_MIN_REPLICAS}) in time: it stands if the primary lives and is lost if it dies now, so its
     * outcome is unknown, and the member is told so (never "not accepted"). Asking again tells: 200 with the position
     * when it stayed, 202 when it was lost.
     */
    public static ApiException admissionNotReplicated(long couponId) {
        return new ApiException(
                ErrorCode.UNAVAILABLE,
                "Your request for coupon " + couponId + " was taken but not yet copied to a replica, so whether it"
                        + " stands is unknown. Ask GET /api/v1/coupons/" + couponId + "/issue-requests/me, or send the"
                        + " request again in a second: it never admits twice, and answers 200 with your position if"
                        + " it was kept.",
                1);
    }

    /** This instance holds as many live status streams as it may ({@code coupon.live.max-streams}). */
    public static ApiException liveStreamsFull(long retryAfterSeconds) {
        return new ApiException(
                ErrorCode.UNAVAILABLE,
                "This instance holds as many live status streams as it may; ask for the status, or open the stream"
                        + " again in " + retryAfterSeconds + " s.",
                retryAfterSeconds);
    }

    /** Over a rate limit: nothing was done, and nothing was charged to any limit. */
    public static ApiException rateLimited(long retryAfterSeconds) {
        return new ApiException(
                ErrorCode.RATE_LIMITED,
                "Too many requests; try again in " + retryAfterSeconds + " s.",
                retryAfterSeconds);
    }

    public static ApiException walletCouponNotFound(long walletCouponId) {
        return of(ErrorCode.WALLET_COUPON_NOT_FOUND, "Your wallet has no coupon " + walletCouponId + ".");
    }

    public static ApiException alreadyUsed(long walletCouponId) {
        return of(ErrorCode.ALREADY_USED, "Wallet coupon " + walletCouponId + " was used by another order.");
    }

    public static ApiException expired(long walletCouponId, java.time.Instant expiresAt) {
        return of(ErrorCode.EXPIRED, "Wallet coupon " + walletCouponId + " expired at " + expiresAt + ".");
    }

    public static ApiException invalid(String detail) {
        return of(ErrorCode.INVALID_REQUEST, detail);
    }
}
