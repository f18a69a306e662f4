package com.flashcoupon.client;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Claims kept in memory: for tests, and for apps that do not need to resume after a restart. */
public final class MemoryClaimStore implements ClaimStore {

    private final Map<Long, StoredClaim> claims = new ConcurrentHashMap<>();

    @Override
    public Optional<StoredClaim> get(long couponId) {
        return Optional.ofNullable(claims.get(couponId));
    }

    @Override
    public void put(StoredClaim claim) {
        claims.put(claim.couponId(), claim);
    }

    @Override
    public void remove(long couponId) {
        claims.remove(couponId);
    }
}
