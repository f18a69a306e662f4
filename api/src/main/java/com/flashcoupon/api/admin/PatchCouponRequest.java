package com.flashcoupon.api.admin;

import com.flashcoupon.contract.StockShards;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import java.time.Instant;

/**
 * {@code PATCH /admin/v1/coupons/{id}}: the issue rate and/or the end of the window, and, until the event opens, its
 * stock shards.
 */
record PatchCouponRequest(
        @Min(1) @Max(100_000) Integer issueRatePerSecond,
        @StorableTime Instant closeAt,
        @Min(1) @Max(StockShards.MAX) @ShardsServed Integer stockShards) {

    @AssertTrue(message = "give issueRatePerSecond and/or closeAt")
    boolean isIssueRatePerSecond() {
        return issueRatePerSecond != null || closeAt != null || stockShards != null;
    }
}
