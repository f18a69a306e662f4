package com.flashcoupon.api.gate;

import java.time.Duration;
import java.util.List;

/** The human-check settings the gate's unit tests build: the api's defaults, but for what a test names. */
final class HumanCheckSettings {

    private HumanCheckSettings() {}

    /** Challenges signed with {@code secret} ("" for a key of the process's own, as in the local profile). */
    static HumanCheckProperties signedWith(String secret) {
        return of(secret, List.of(), List.of(), "", Duration.ofMinutes(5), "coupon_risk", 2);
    }

    /** A siteverify check of these hostnames, app packages, action and token age. */
    static HumanCheckProperties siteverify(List<String> hosts, List<String> apps, String action, Duration maxTokenAge) {
        return of("", hosts, apps, action, maxTokenAge, "coupon_risk", 2);
    }

    /** A risk read from {@code claim}, {@code extraBits} more per level. */
    static HumanCheckProperties risk(String claim, int extraBits) {
        return of("", List.of(), List.of(), "", Duration.ofMinutes(5), claim, extraBits);
    }

    private static HumanCheckProperties of(
            String secret,
            List<String> hosts,
            List<String> apps,
            String action,
            Duration maxTokenAge,
            String riskClaim,
            int riskExtraBits) {
        return new HumanCheckProperties(
                secret,
                Duration.ofSeconds(120),
                16,
                "",
                "",
                Duration.ofSeconds(2),
                hosts,
                apps,
                action,
                maxTokenAge,
                0.5,
                1024,
                1,
                6,
                riskClaim,
                riskExtraBits);
    }
}
