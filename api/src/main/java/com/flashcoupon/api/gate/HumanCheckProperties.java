package com.flashcoupon.api.gate;

import jakarta.validation.constraints.DecimalMax;
import jakarta.validation.constraints.DecimalMin;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.time.Duration;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The human checks of events that have one (issue 26), under {@code coupon.human-check}.
 *
 * @param secret signs proof-of-work challenges ({@code COUPON_HUMAN_CHECK_SECRET}, at least 32 bytes); every api
 *     instance must share it, so outside the local profile the api does not start without it. Empty in the local
 *     profile: a random one per process, which only a single instance can use (logged)
 * @param challengeTtl how long a challenge may be answered ({@code COUPON_HUMAN_CHECK_CHALLENGE_TTL})
 * @param defaultDifficultyBits the proof of work's difficulty when an event names none
 *     ({@code COUPON_HUMAN_CHECK_DEFAULT_DIFFICULTY_BITS})
 * @param verifyUrl the siteverify endpoint ({@code COUPON_HUMAN_CHECK_VERIFY_URL}): Turnstile's, reCAPTCHA's or
 *     hCaptcha's, https outside the local profile; empty: SITEVERIFY events refuse with 503
 * @param verifySecret the site's secret sent to it ({@code COUPON_HUMAN_CHECK_VERIFY_SECRET})
 * @param verifyTimeout how long the service may take before the admission fails closed with 503
 *     ({@code COUPON_HUMAN_CHECK_VERIFY_TIMEOUT})
 * @param allowedHostnames the sites whose tokens are accepted: the answer's {@code hostname}
 *     ({@code COUPON_HUMAN_CHECK_ALLOWED_HOSTNAMES})
 * @param allowedAppPackages the Android apps whose tokens are accepted: the answer's {@code apk_package_name}
 *     ({@code COUPON_HUMAN_CHECK_ALLOWED_APP_PACKAGES}). With both lists empty nothing is checked of where a token was
 *     made, which only the local profile allows
 * @param expectedAction the answer's {@code action} must be this one ({@code COUPON_HUMAN_CHECK_EXPECTED_ACTION});
 *     empty: not checked
 * @param maxTokenAge the oldest {@code challenge_ts} accepted ({@code COUPON_HUMAN_CHECK_MAX_TOKEN_AGE}); an answer
 *     without one is refused
 * @param minScore the lowest {@code score} accepted, when the service gives one (reCAPTCHA v3)
 *     ({@code COUPON_HUMAN_CHECK_MIN_SCORE})
 * @param argon2MemoryKib an ARGON2ID event's puzzle memory per try, KiB ({@code COUPON_HUMAN_CHECK_ARGON2_MEMORY_KIB});
 *     the server verifies one hash of it per admission
 * @param argon2Iterations its passes over that memory ({@code COUPON_HUMAN_CHECK_ARGON2_ITERATIONS})
 * @param argon2DefaultDifficultyBits its leading zero bits when an ARGON2ID event names none: a solver makes about
 *     2^bits tries ({@code COUPON_HUMAN_CHECK_ARGON2_DEFAULT_DIFFICULTY_BITS})
 * @param riskClaim the member token's claim that rates the account's risk ({@code COUPON_HUMAN_CHECK_RISK_CLAIM}): a
 *     level 0 to 3 ({@code low}, {@code medium}, {@code high} also read as 0, 1, 2); absent or unreadable: 0. Empty: no
 *     claim is read
 * @param riskExtraBits the zero bits a proof of work asks for on top of the event's per level of that risk
 *     ({@code COUPON_HUMAN_CHECK_RISK_EXTRA_BITS}): each bit doubles the work of a SHA-256 or Argon2id solver
 */
@Validated
@ConfigurationProperties("coupon.human-check")
public record HumanCheckProperties(
        @DefaultValue("") String secret,
        @DefaultValue("120s") @NotNull Duration challengeTtl,
        @DefaultValue("16") @Min(1) @Max(32) int defaultDifficultyBits,
        @DefaultValue("") String verifyUrl,
        @DefaultValue("") String verifySecret,
        @DefaultValue("2s") @NotNull Duration verifyTimeout,
        @DefaultValue("") List<String> allowedHostnames,
        @DefaultValue("") List<String> allowedAppPackages,
        @DefaultValue("") String expectedAction,
        @DefaultValue("300s") @NotNull Duration maxTokenAge,

        @DefaultValue("0.5") @DecimalMin("0.0") @DecimalMax("1.0")
        double minScore,

        @DefaultValue("1024") @Min(64) @Max(262144) int argon2MemoryKib,
        @DefaultValue("1") @Min(1) @Max(10) int argon2Iterations,
        @DefaultValue("6") @Min(0) @Max(16) int argon2DefaultDifficultyBits,
        @DefaultValue("coupon_risk") String riskClaim,
        @DefaultValue("2") @Min(0) @Max(8) int riskExtraBits) {

    public HumanCheckProperties {
        allowedHostnames = clean(allowedHostnames);
        allowedAppPackages = clean(allowedAppPackages);
        expectedAction = expectedAction == null ? "" : expectedAction.strip();
        riskClaim = riskClaim == null ? "" : riskClaim.strip();
    }

    private static List<String> clean(List<String> entries) {
        return entries == null
                ? List.of()
                : entries.stream()
                        .map(String::strip)
                        .filter(entry -> !entry.isEmpty())
                        .toList();
    }
}
