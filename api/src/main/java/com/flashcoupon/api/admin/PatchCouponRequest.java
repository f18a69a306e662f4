package com.flashcoupon.api.admin;

import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Instant;

/** {@code PATCH /admin/v1/coupons/{id}}: the issue rate and/or the end of the window. */
record PatchCouponRequest(
        @Min(1) @Max(100_000) Integer issueRatePerSecond,
        @StorableTime Instant closeAt) {

    @AssertTrue(message = "give issueRatePerSecond and/or closeAt")
    boolean isIssueRatePerSecond() {
        return issueRatePerSecond != null || closeAt != null;
    }
}
