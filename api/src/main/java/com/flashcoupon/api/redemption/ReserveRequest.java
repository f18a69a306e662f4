package com.flashcoupon.api.redemption;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Pattern;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.Size;

/** Body of {@code POST /internal/v1/redemptions}: this member's wallet coupon, for this order of this amount. */
record ReserveRequest(
        @NotNull @Positive Long walletCouponId,
        @NotNull @Pattern(regexp = "[A-Za-z0-9._:-]{1,64}") String memberId,
        @NotNull @Size(min = 1, max = 64) String orderId,
        @NotNull @Min(0) @Max(Benefit.MAX_AMOUNT) Long orderAmount) {}
