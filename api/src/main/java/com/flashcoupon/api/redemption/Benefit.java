package com.flashcoupon.api.redemption;

import com.fasterxml.jackson.annotation.JsonInclude;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;

/**
 * What a coupon is worth, fixed when its event is created (docs/http-api.md, {@code benefit}): an amount off, or a
 * percentage off capped by {@code maxDiscount}, for orders of at least {@code minOrderAmount}. Whole units of the
 * deployment's one currency. The same record is the request's field and every view's.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record Benefit(
        @NotNull Type type,
        @Min(1) @Max(MAX_AMOUNT) Long amount,
        @Min(1) @Max(100) Integer percent,
        @Min(1) @Max(MAX_AMOUNT) Long maxDiscount,
        @Min(0) @Max(MAX_AMOUNT) Long minOrderAmount) {

    /** The largest amount of money any field takes: a trillion units. */
    public static final long MAX_AMOUNT = 1_000_000_000_000L;

    public enum Type {
        FIXED_AMOUNT,
        PERCENT
    }

    /** Always present in views: 0 when the operator gave none. */
    public Benefit {
        minOrderAmount = minOrderAmount == null ? 0L : minOrderAmount;
    }

    @AssertTrue(message = "FIXED_AMOUNT needs amount and takes neither percent nor maxDiscount")
    boolean isAmount() {
        return type != Type.FIXED_AMOUNT || (amount != null && percent == null && maxDiscount == null);
    }

    @AssertTrue(message = "PERCENT needs percent (1 to 100), may cap it with maxDiscount and takes no amount")
    boolean isPercent() {
        return type != Type.PERCENT || (percent != null && amount == null);
    }

    /** The discount on an order of {@code orderAmount}: never more than the order. The minimum is checked apart. */
    public long discount(long orderAmount) {
        long off = type == Type.FIXED_AMOUNT ? amount : orderAmount * percent / 100;
        if (maxDiscount != null) {
            off = Math.min(off, maxDiscount);
        }
        return Math.min(off, orderAmount);
    }

    /** What a use without an order amount (the member's app) grants: the fixed amount, else unknown (null). */
    public Long discountWithoutAmount() {
        return type == Type.FIXED_AMOUNT ? amount : null;
    }
}
