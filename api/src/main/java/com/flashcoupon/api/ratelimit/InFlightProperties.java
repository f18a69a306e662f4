package com.flashcoupon.api.ratelimit;

import jakarta.validation.constraints.Min;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * How many member requests one member and one client address may have in work at once on one api instance, under
 * {@code coupon.inflight} ({@link InFlightLimits}); 0 turns a cap off, and so does turning off the rate limit of the
 * same key ({@code coupon.ratelimit.member-per-second}, {@code address-per-second}).
 *
 * @param perMember requests of one member at once: an app's normal use needs about three (a status poll, an admission,
 *     a wallet or device call; live status streams do not count)
 * @param perAddress requests from one client address at once, whichever members send them, including bodies still
 *     arriving: many accounts behind one address cannot add up to more
 */
@Validated
@ConfigurationProperties("coupon.inflight")
public record InFlightProperties(
        @DefaultValue("6") @Min(0) int perMember,
        @DefaultValue("64") @Min(0) int perAddress) {}
