package com.flashcoupon.api.admin;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Instant;

/** {@code POST /admin/v1/coupons} (docs/http-api.md). {@code validDays} defaults to 30. */
record CreateCouponRequest(
        @NotBlank @Size(max = 100) String name,
        @NotNull @Min(1) @Max(10_000_000) Integer totalQuantity,
        @NotNull @StorableTime Instant openAt,
        @StorableTime Instant closeAt,
        @NotNull @Min(1) @Max(100_000) Integer issueRatePerSecond,
        @Min(1) @Max(3650) Integer validDays) {

    static final int DEFAULT_VALID_DAYS = 30;

    @AssertTrue(message = "must be after openAt")
    boolean isCloseAt() {
        return closeAt == null || openAt == null || closeAt.isAfter(openAt);
    }

    int validDaysOrDefault() {
        return validDays == null ? DEFAULT_VALID_DAYS : validDays;
    }
}
