package com.flashcoupon.api.wallet;

import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /api/v1/me/coupons/{walletCouponId}/use}. */
record UseRequest(@NotNull @Size(min = 1, max = 64) String orderId) {}
