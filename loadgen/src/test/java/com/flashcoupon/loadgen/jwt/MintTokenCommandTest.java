package com.flashcoupon.loadgen.jwt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.loadgen.UsageException;
import com.nimbusds.jwt.SignedJWT;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MintTokenCommandTest {

    private static final String SECRET = "flash-coupon-local-secret-do-not-use-in-production";
    private static final Instant NOW = Instant.parse("2026-01-02T03:04:05Z");
    private static final Clock CLOCK = Clock.fixed(NOW, ZoneOffset.UTC);

    @Test
    void shouldMintAnOperatorTokenValidTwelveHoursByDefault() throws Exception {
        String token = MintTokenCommand.token(
                List.of("operator-1", "coupon-admin"), Map.of("COUPON_JWT_SECRET", SECRET), CLOCK);

        var claims = SignedJWT.parse(token).getJWTClaimsSet();
        assertThat(claims.getSubject()).isEqualTo("operator-1");
        assertThat(claims.getStringListClaim("roles")).containsExactly("coupon-admin");
        assertThat(claims.getExpirationTime()).isEqualTo(Date.from(NOW.plusSeconds(12 * 3600)));
    }

    @Test
    void shouldTakeTheLifetimeFromTheEnvironment() throws Exception {
        String token = MintTokenCommand.token(
                List.of("member-1"), Map.of("COUPON_JWT_SECRET", SECRET, "COUPON_JWT_TTL_MINUTES", "5"), CLOCK);

        var claims = SignedJWT.parse(token).getJWTClaimsSet();
        assertThat(claims.getStringListClaim("roles")).isEmpty();
        assertThat(claims.getExpirationTime()).isEqualTo(Date.from(NOW.plusSeconds(300)));
    }

    @Test
    void shouldRefuseWithoutSubjectSecretOrWithABadOne() {
        Map<String, String> env = Map.of("COUPON_JWT_SECRET", SECRET);
        assertThatThrownBy(() -> MintTokenCommand.token(List.of(), env, CLOCK)).isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> MintTokenCommand.token(List.of("m-1"), Map.of(), CLOCK))
                .isInstanceOf(UsageException.class);
        assertThatThrownBy(() -> MintTokenCommand.token(List.of("m-1"), Map.of("COUPON_JWT_SECRET", "short"), CLOCK))
                .isInstanceOf(UsageException.class)
                .hasMessageContaining("32 bytes");
        assertThatThrownBy(() -> MintTokenCommand.token(List.of("has space"), env, CLOCK))
                .isInstanceOf(UsageException.class);
    }
}
