package com.flashcoupon.api.wallet;

import java.time.Instant;

/** One coupon in a member's wallet (docs/http-api.md, {@code GET /api/v1/me/coupons}). */
record WalletEntry(
        long walletCouponId,
        long couponId,
        String name,
        Instant issuedAt,
        Instant expiresAt,
        Instant usedAt,
        String orderId) {

    boolean isUsed() {
        return usedAt != null;
    }
}
