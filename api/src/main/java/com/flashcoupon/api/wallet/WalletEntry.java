package com.flashcoupon.api.wallet;

import com.flashcoupon.api.redemption.Benefit;
import com.flashcoupon.api.redemption.WalletState;
import java.time.Instant;

/**
 * One coupon in a member's wallet (docs/http-api.md, {@code GET /api/v1/me/coupons}), with its state and what it is
 * worth ({@code benefit}: null when its event has none).
 */
record WalletEntry(
        long walletCouponId,
        long couponId,
        String name,
        Instant issuedAt,
        Instant expiresAt,
        Instant usedAt,
        String orderId,
        WalletState state,
        Benefit benefit) {}
