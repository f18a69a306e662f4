package com.flashcoupon.api.drain;

/**
 * Called after Kafka acknowledged a batch and before the cursor moves: the seam where a crash at the worst moment is
 * injected in tests. Production has none.
 */
@FunctionalInterface
public interface PublishHook {

    void published(long couponId, long fromCursor, int count);
}
