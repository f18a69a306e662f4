package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;

/** How a member's account risk raises a proof of work's difficulty. */
class RiskDifficultyTest {

    private static HumanCheckProperties settings(String claim, int extraBits) {
        return HumanCheckSettings.risk(claim, extraBits);
    }

    private static Jwt token(Map<String, Object> claims) {
        Jwt.Builder builder = Jwt.withTokenValue("t")
                .header("alg", "HS256")
                .subject("m-1")
                .issuedAt(Instant.EPOCH)
                .expiresAt(Instant.EPOCH.plusSeconds(60));
        claims.forEach(builder::claim);
        return builder.build();
    }

    private final RiskDifficulty risk = new RiskDifficulty(settings("coupon_risk", 2));

    @Test
    void shouldReadTheLevelFromANumberOrAWordAndCountAnythingElseAsTrusted() {
        assertThat(risk.level(token(Map.of()))).isZero();
        assertThat(risk.level(token(Map.of("coupon_risk", 1)))).isEqualTo(1);
        assertThat(risk.level(token(Map.of("coupon_risk", "2")))).isEqualTo(2);
        assertThat(risk.level(token(Map.of("coupon_risk", "medium")))).isEqualTo(1);
        assertThat(risk.level(token(Map.of("coupon_risk", "HIGH")))).isEqualTo(2);
        assertThat(risk.level(token(Map.of("coupon_risk", 99)))).isEqualTo(RiskDifficulty.MAX_LEVEL);
        assertThat(risk.level(token(Map.of("coupon_risk", -4)))).isZero();
        assertThat(risk.level(token(Map.of("coupon_risk", "unknown")))).isZero();
        assertThat(risk.level(token(Map.of("coupon_risk", List.of(3))))).isZero();
        assertThat(new RiskDifficulty(settings("", 2)).level(token(Map.of("coupon_risk", 3))))
                .as("no claim named: nobody is rated")
                .isZero();
    }

    @Test
    void shouldAddBitsPerLevelOnlyToAnEventThatAsksForWorkUpToEachPuzzlesCeiling() {
        assertThat(risk.bits(16, false, 0)).isEqualTo(16);
        assertThat(risk.bits(16, false, 2)).isEqualTo(20);
        assertThat(risk.bits(30, false, 3)).isEqualTo(32);
        assertThat(risk.bits(6, true, 1)).isEqualTo(8);
        assertThat(risk.bits(14, true, 3)).isEqualTo(16);
        assertThat(risk.bits(0, false, 3))
                .as("an event without proof of work asks none")
                .isZero();
    }
}
