package com.flashcoupon.api.gate;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;

/**
 * The caps of an event's eligibility upload ({@code PUT /admin/v1/coupons/{id}/eligible-members}), under
 * {@code coupon.eligibility} (docs/operations.md, settings). A line is also capped, at a fixed
 * {@link ListScanner#MAX_LINE_BYTES}.
 *
 * @param maxBytes the largest list body ({@code COUPON_ELIGIBILITY_MAX_BYTES})
 * @param maxLines the most lines a list may have, blank ones included ({@code COUPON_ELIGIBILITY_MAX_LINES})
 * @param maxTempBytes the temporary disk all uploads in progress on one instance may use together
 *     ({@code COUPON_ELIGIBILITY_MAX_TEMP_BYTES})
 */
@Validated
@ConfigurationProperties("coupon.eligibility")
record EligibilityUploadProperties(
        @DefaultValue("256MB") @NotNull DataSize maxBytes,
        @DefaultValue("10000000") @Min(1) long maxLines,
        @DefaultValue("512MB") @NotNull DataSize maxTempBytes) {}
