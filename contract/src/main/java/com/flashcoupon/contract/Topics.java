package com.flashcoupon.contract;

import java.util.Map;

/** Kafka topics of the pipeline: the one place their names are defined. */
public final class Topics {

    /** Admitted requests, published by the api's drainer, keyed by coupon id (one coupon's records stay in order). */
    public static final String ISSUE_REQUESTED = "coupon.issue.requested";

    /** One result per request, published by the worker after its MySQL commit, keyed by coupon id. */
    public static final String ISSUE_RESULT = "coupon.issue.result";

    /** Requested records the worker could never process, after bounded retries. */
    public static final String ISSUE_REQUESTED_DEAD_LETTER = "coupon.issue.requested.dlt";

    /**
     * Every change of a wallet coupon's state ({@link WalletChanged}), published by the api from its outbox, keyed by
     * member id (one member's changes stay in order), at least once: consumers drop a {@code changeId} seen before.
     */
    public static final String WALLET_CHANGED = "coupon.wallet.changed";

    /**
     * Result records whose pushes did not all finish, redelivered to the worker's notifier from here (Spring Kafka's
     * retry topic of {@link #ISSUE_RESULT}).
     */
    public static final String ISSUE_RESULT_NOTIFY_RETRY = ISSUE_RESULT + ".notify-retry";

    /** Result records whose pushes still failed after the redeliveries: the operator's, nothing consumes them. */
    public static final String ISSUE_RESULT_NOTIFY_DEAD_LETTER = ISSUE_RESULT + ".notify-dlt";

    private Topics() {}

    /**
     * The configuration of a topic the apps create with this replication factor: {@code min.insync.replicas} is one
     * less (at least 1). With the producers' {@code acks=all}, an acknowledged record is then on every in-sync replica
     * and on at least two brokers once the factor is 3, so one broker that dies with its disk loses nothing; and the
     * topic stays writable while one broker is down. With a factor of 1 (local runs) it is the broker's default.
     */
    public static Map<String, String> configs(int replicationFactor) {
        if (replicationFactor < 1) {
            throw new IllegalArgumentException("a replication factor is at least 1, not " + replicationFactor);
        }
        return Map.of("min.insync.replicas", Integer.toString(Math.max(1, replicationFactor - 1)));
    }

    /** The record key of both topics: the coupon id, so that one coupon's records (and so each member's) stay ordered. */
    public static String key(long couponId) {
        return Long.toString(couponId);
    }
}
