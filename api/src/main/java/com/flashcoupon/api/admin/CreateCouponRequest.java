package com.flashcoupon.api.admin;

import com.flashcoupon.api.gate.GateRequest;
import com.flashcoupon.api.gatestate.GateSettings;
import com.flashcoupon.api.redemption.Benefit;
import com.flashcoupon.contract.StockShards;
import com.flashcoupon.db.Coupon;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Size;
import java.time.Instant;

/**
 * {@code POST /admin/v1/coupons} (docs/http-api.md). {@code validDays} defaults to 30, {@code queueing} to FIFO;
 * RANDOMIZED_START takes {@code queueingWindowSeconds}, the window after {@code openAt} whose members are placed by a
 * draw. {@code announceAt}, from when members may see the event, defaults to {@code openAt} minus {@code
 * COUPON_ANNOUNCE_LEAD} and is never after {@code openAt}. {@code benefit} (optional) is what the coupon is worth,
 * fixed from then on. {@code stockShards} (1 to 64, default 1) is how many Redis hash slots its admission state is spread
 * over (docs/architecture.md, "Stock shards"), up to the deployment's {@code coupon.shards.max-served}.
 */
record CreateCouponRequest(
        @NotBlank @Size(max = 100) String name,
        @NotNull @Min(1) @Max(10_000_000) Integer totalQuantity,
        @NotNull @StorableTime Instant openAt,
        @StorableTime Instant closeAt,
        @NotNull @Min(1) @Max(100_000) Integer issueRatePerSecond,
        @Min(1) @Max(3650) Integer validDays,
        Coupon.Queueing queueing,
        @Min(1) @Max(3600) Integer queueingWindowSeconds,
        @StorableTime Instant announceAt,
        // the gate (issue 26): who the event is for, and its human check
        @Valid GateRequest.Eligibility eligibility,
        GateSettings.Mode eligibilityMode,
        @Valid GateRequest.HumanCheck humanCheck,
        @Valid Benefit benefit,
        @Min(1) @Max(StockShards.MAX) @ShardsServed Integer stockShards) {

    GateRequest gate() {
        return new GateRequest(eligibility, eligibilityMode, humanCheck);
    }

    static final int DEFAULT_VALID_DAYS = 30;

    int stockShardsOrDefault() {
        return stockShards == null ? 1 : stockShards;
    }

    /** Compared as they are stored (whole seconds), so a stored closeAt never equals openAt or the draw's time. */
    @AssertTrue(message = "must be after openAt, and after the queueing window when there is one")
    boolean isCloseAt() {
        if (closeAt == null || openAt == null) {
            return true;
        }
        Instant opens = CouponAdminService.seconds(openAt);
        Instant lastOfWindow = queueingWindowSeconds == null ? opens : opens.plusSeconds(queueingWindowSeconds);
        return CouponAdminService.seconds(closeAt).isAfter(lastOfWindow);
    }

    @AssertTrue(message = "must not be after openAt")
    boolean isAnnounceAt() {
        return announceAt == null
                || openAt == null
                || !CouponAdminService.seconds(announceAt).isAfter(CouponAdminService.seconds(openAt));
    }

    @AssertTrue(message = "RANDOMIZED_START needs queueingWindowSeconds (1 to 3600); FIFO takes none")
    boolean isQueueingWindowSeconds() {
        return queueingOrDefault() == Coupon.Queueing.RANDOMIZED_START
                ? queueingWindowSeconds != null
                : queueingWindowSeconds == null;
    }

    Coupon.Queueing queueingOrDefault() {
        return queueing == null ? Coupon.Queueing.FIFO : queueing;
    }

    int queueingWindowSecondsOrZero() {
        return queueingWindowSeconds == null ? 0 : queueingWindowSeconds;
    }

    int validDaysOrDefault() {
        return validDays == null ? DEFAULT_VALID_DAYS : validDays;
    }
}
