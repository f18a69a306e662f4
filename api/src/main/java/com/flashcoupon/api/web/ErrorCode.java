package com.flashcoupon.api.web;

import org.springframework.http.HttpStatus;

/** The stable {@code code} of every problem the api answers with (docs/http-api.md, Errors). */
public enum ErrorCode {
    INVALID_REQUEST(HttpStatus.BAD_REQUEST, "Invalid request"),
    UNAUTHORIZED(HttpStatus.UNAUTHORIZED, "Unauthorized"),
    FORBIDDEN(HttpStatus.FORBIDDEN, "Forbidden"),
    NOT_FOUND(HttpStatus.NOT_FOUND, "Not found"),
    COUPON_NOT_FOUND(HttpStatus.NOT_FOUND, "Coupon not found"),
    REQUEST_NOT_FOUND(HttpStatus.NOT_FOUND, "Issue request not found"),
    WALLET_COUPON_NOT_FOUND(HttpStatus.NOT_FOUND, "Wallet coupon not found"),
    METHOD_NOT_ALLOWED(HttpStatus.METHOD_NOT_ALLOWED, "Method not allowed"),
    NOT_ACCEPTABLE(HttpStatus.NOT_ACCEPTABLE, "Not acceptable"),
    /** A request's body did not arrive within the server's read or request time-out; the connection is closed. */
    REQUEST_TIMEOUT(HttpStatus.REQUEST_TIMEOUT, "Request timeout"),
    SOLD_OUT(HttpStatus.CONFLICT, "Sold out"),
    NOT_OPEN(HttpStatus.CONFLICT, "Not open"),
    ALREADY_USED(HttpStatus.CONFLICT, "Already used"),
    EXPIRED(HttpStatus.CONFLICT, "Expired"),
    /** An operator's change to an event that is retired (its life is over; its settings no longer change). */
    RETIRED(HttpStatus.CONFLICT, "Retired"),
    /** The export of a draw that is not made yet, or of an event that has none (first come, first served). */
    DRAW_NOT_MADE(HttpStatus.CONFLICT, "Draw not made"),
    /** The gate (issue 26): a change that is allowed only until the event opens (its eligibility list). */
    ALREADY_OPEN(HttpStatus.CONFLICT, "Already open"),
    /** The gate: the member is not one the event is for (its list, its claim rules). */
    NOT_ELIGIBLE(HttpStatus.FORBIDDEN, "Not eligible"),
    /** The gate: the event asks for a human check and the admission carries no {@code X-Coupon-Proof}. */
    PROOF_REQUIRED(HttpStatus.PRECONDITION_REQUIRED, "Proof required"),
    /** The gate: the {@code X-Coupon-Proof} is wrong, expired, another member's or event's, or refused. */
    PROOF_INVALID(HttpStatus.FORBIDDEN, "Proof invalid"),
    /** Redemption API: the wallet coupon is held by another order's reservation. */
    RESERVED_BY_ANOTHER_ORDER(HttpStatus.CONFLICT, "Reserved by another order"),
    /** Redemption API: the redemption is not in a state the call can move it from (the detail says which it is in). */
    REDEMPTION_STATE_CONFLICT(HttpStatus.CONFLICT, "Redemption state conflict"),
    /** Redemption API: no redemption with this id. */
    REDEMPTION_NOT_FOUND(HttpStatus.NOT_FOUND, "Redemption not found"),
    /**
     * Redemption API: the member marked the coupon used from the app for this same order id; the order service cannot
     * take that use over (its amount was never checked against the minimum).
     */
    USED_BY_MEMBER(HttpStatus.CONFLICT, "Used by member"),
    /** Redemption API: the order already holds the coupon for another amount; release it and reserve again. */
    ORDER_AMOUNT_CHANGED(HttpStatus.CONFLICT, "Order amount changed"),
    /** Redemption API: the order's amount is below the coupon's {@code minOrderAmount}. */
    ORDER_BELOW_MINIMUM(HttpStatus.UNPROCESSABLE_CONTENT, "Order below minimum"),
    /** Redemption API: an {@code Idempotency-Key} sent again with another request. */
    IDEMPOTENCY_KEY_REUSED(HttpStatus.UNPROCESSABLE_CONTENT, "Idempotency key reused"),
    PAYLOAD_TOO_LARGE(HttpStatus.CONTENT_TOO_LARGE, "Payload too large"),
    UNSUPPORTED_MEDIA_TYPE(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "Unsupported media type"),
    RATE_LIMITED(HttpStatus.TOO_MANY_REQUESTS, "Too many requests"),
    INTERNAL_ERROR(HttpStatus.INTERNAL_SERVER_ERROR, "Internal error"),
    UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "Service unavailable");

    private final HttpStatus status;
    private final String title;

    ErrorCode(HttpStatus status, String title) {
        this.status = status;
        this.title = title;
    }

    public HttpStatus status() {
        return status;
    }

    public String title() {
        return title;
    }
}
