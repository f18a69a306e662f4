package com.flashcoupon.api.redemption;

import java.time.Instant;

/**
 * One order's redemption of a wallet coupon, as the redemption API answers it (docs/http-api.md, Internal endpoints).
 *
 * @param discount what the coupon takes off this order; null for a use from the member's app of a PERCENT coupon (no
 *     order amount is known there)
 * @param state the redemption's own state
 * @param couponState the wallet coupon's state when this answer was made
 * @param expiresAt while RESERVED: when the reservation lapses unless confirmed; null otherwise
 */
record Redemption(
        long redemptionId,
        long walletCouponId,
        long couponId,
        String memberId,
        String orderId,
        Long orderAmount,
        Long discount,
        RedemptionState state,
        WalletState couponState,
        Instant reservedAt,
        Instant expiresAt,
        Instant confirmedAt,
        Instant endedAt) {}
