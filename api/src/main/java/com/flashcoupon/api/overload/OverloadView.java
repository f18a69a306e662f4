package com.flashcoupon.api.overload;

/**
 * The overload guard of the instance that answered (docs/http-api.md, {@code GET /admin/v1/overload}).
 *
 * @param enabled whether the guard limits anything ({@code COUPON_OVERLOAD_ENABLED})
 * @param limit member requests the instance works on at once at most, adapted to their latency
 * @param inFlight member requests it is working on now
 * @param accepted member requests let through since the instance started
 * @param refused member requests refused with 503 since the instance started
 */
record OverloadView(boolean enabled, int limit, int inFlight, long accepted, long refused) {}
