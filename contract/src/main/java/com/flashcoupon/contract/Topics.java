package com.flashcoupon.contract;

/** Kafka topics of the pipeline: the one place their names are defined. */
public final class Topics {

    /** Admitted requests, published by the api's drainer, keyed by coupon id (one coupon's records stay in order). */
    public static final String ISSUE_REQUESTED = "coupon.issue.requested";

    /** One result per request, published by the worker after its MySQL commit, keyed by coupon id. */
    public static final String ISSUE_RESULT = "coupon.issue.result";

    /** Requested records the worker could never process, after bounded retries. */
    public static final String ISSUE_REQUESTED_DEAD_LETTER = "coupon.issue.requested.dlt";

    private Topics() {}

    /** The record key of both topics: the coupon id, so that one coupon's records (and so each member's) stay ordered. */
    public static String key(long couponId) {
        return Long.toString(couponId);
    }
}
