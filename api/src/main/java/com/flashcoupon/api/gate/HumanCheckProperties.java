package com.flashcoupon.api.gate;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The human checks of events that have one (issue 26), under {@code coupon.human-check}.
 *
 * @param secret signs proof-of-work challenges ({@code COUPON_HUMAN_CHECK_SECRET}, at least 32 bytes); every api
 *     instance must share it. Empty: a random one per process, which only a single instance can use (logged)
 * @param challengeTtl how long a challenge may be answered ({@code COUPON_HUMAN_CHECK_CHALLENGE_TTL})
 * @param defaultDifficultyBits the proof of work's difficulty when an event names none
 *     ({@code COUPON_HUMAN_CHECK_DEFAULT_DIFFICULTY_BITS})
 * @param verifyUrl the siteverify endpoint ({@code COUPON_HUMAN_CHECK_VERIFY_URL}): Turnstile's, reCAPTCHA's or
 *     hCaptcha's; empty: SITEVERIFY events refuse with 503
 * @param verifySecret the site's secret sent to it ({@code COUPON_HUMAN_CHECK_VERIFY_SECRET})
 * @param verifyTimeout how long the service may take before the admission fails closed with 503
 *     ({@code COUPON_HUMAN_CHECK_VERIFY_TIMEOUT})
 */
@Validated
@ConfigurationProperties("coupon.human-check")
public record HumanCheckProperties(
        @DefaultValue("") String secret,
        @DefaultValue("120s") @NotNull Duration challengeTtl,
        @DefaultValue("16") @Min(1) @Max(32) int defaultDifficultyBits,
        @DefaultValue("") String verifyUrl,
        @DefaultValue("") String verifySecret,
        @DefaultValue("2s") @NotNull Duration verifyTimeout) {}
