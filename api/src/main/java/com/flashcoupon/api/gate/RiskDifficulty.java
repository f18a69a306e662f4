package com.flashcoupon.api.gate;

import java.util.Locale;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.stereotype.Component;

/**
 * A proof of work as hard as the member's account is risky (issue 34, N6): the identity provider rates each account in
 * a claim of the member's token ({@code coupon.human-check.risk-claim}, {@code coupon_risk} by default), and a
 * challenge asks {@code risk-extra-bits} more zero bits per level than the event does, so a fresh or flagged account
 * pays 4, 16 or 64 times the work of a trusted one at the default 2 bits. The challenge signs its bits with the
 * member's id, so a risky member cannot use an easier one; the admission checks the event's bits as before. A token
 * without the claim, or with a value it cannot read, is level 0: the provider decides who is risky, not the api.
 */
@Component
class RiskDifficulty {

    /** The highest level read: a claim above it counts as this one. */
    static final int MAX_LEVEL = 3;

    private static final int MAX_SHA256_BITS = 32;
    private static final int MAX_ARGON2_BITS = 16;

    private final String claim;
    private final int extraBits;

    RiskDifficulty(HumanCheckProperties properties) {
        this.claim = properties.riskClaim();
        this.extraBits = properties.riskExtraBits();
    }

    /** The member's risk level, 0 to {@link #MAX_LEVEL}, from their token's claim. */
    int level(Jwt jwt) {
        if (claim.isEmpty() || jwt == null) {
            return 0;
        }
        Object value = jwt.getClaims().get(claim);
        int level;
        if (value instanceof Number number) {
            level = number.intValue();
        } else if (value instanceof String text) {
            level = switch (text.strip().toLowerCase(Locale.ROOT)) {
                case "low" -> 0;
                case "medium" -> 1;
                case "high" -> 2;
                default -> text.strip().matches("[0-9]{1,2}") ? Integer.parseInt(text.strip()) : 0;
            };
        } else {
            level = 0;
        }
        return Math.clamp(level, 0, MAX_LEVEL);
    }

    /** The zero bits a challenge asks of a member at {@code level} for an event of {@code eventBits} (0: none). */
    int bits(int eventBits, boolean argon2id, int level) {
        if (eventBits <= 0) {
            return 0;
        }
        return Math.min(argon2id ? MAX_ARGON2_BITS : MAX_SHA256_BITS, eventBits + level * extraBits);
    }
}
