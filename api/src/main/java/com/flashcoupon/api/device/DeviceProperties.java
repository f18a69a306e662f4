package com.flashcoupon.api.device;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Push tokens, under {@code coupon.devices}.
 *
 * @param maxPerMember devices one member keeps at most ({@code COUPON_DEVICES_MAX_PER_MEMBER}; the worker pushes one
 *     result to no more than this many either): registering one more removes the member's least recently registered
 */
@Validated
@ConfigurationProperties("coupon.devices")
record DeviceProperties(
        @DefaultValue("20") @Min(1) @Max(1000) int maxPerMember) {}
