package com.flashcoupon.api.admin;

/**
 * How many stock shards the admission path serves today (issue 35). An event's {@code stockShards} may be 1 to 64 by
 * the contract, but an event of more than one shard is refused with a 400 until admission, the drainer, status,
 * restore and retirement all work across shards: a half-built shard path is never reachable.
 */
final class ShardsServed {

    /** The most shards an event may be given now. */
    static final int MOST = 1;

    static final String NOT_SERVED = "more than 1 stock shard is not served yet: the sharded admission path is still"
            + " being built (docs/architecture.md, \"Stock shards\"); leave stockShards out or give 1";

    private ShardsServed() {}

    static boolean served(Integer stockShards) {
        return stockShards == null || stockShards < 1 || stockShards <= MOST;
    }
}
