package com.flashcoupon.client;

import java.util.Optional;

/**
 * Where a client keeps its claims so that {@link CouponClient#resume} can pick one up after the app was killed: an app
 * implements it on its own storage (SharedPreferences, a file, a database); {@link MemoryClaimStore} keeps them for
 * the life of the process. Called from OkHttp threads: implementations are thread-safe, and quick.
 */
public interface ClaimStore {

    Optional<StoredClaim> get(long couponId);

    void put(StoredClaim claim);

    void remove(long couponId);
}
