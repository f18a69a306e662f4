package com.flashcoupon.loadgen.jwt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.ImmutableSecret;
import com.nimbusds.jose.proc.BadJOSEException;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class JwtMinterTest {

    private static final String SECRET = "flash-coupon-local-secret-do-not-use-in-production";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final Instant now = Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS);
    private final JwtMinter minter = new JwtMinter(SECRET, Clock.fixed(now, ZoneOffset.UTC), Duration.ofHours(1));

    /** Verifies the way Spring Security's NimbusJwtDecoder.withSecretKey(…) does: HS256, signature, then exp. */
    private static JWTClaimsSet verify(String token, String secret) throws Exception {
        DefaultJWTProcessor<SecurityContext> processor = new DefaultJWTProcessor<>();
        processor.setJWSKeySelector(new JWSVerificationKeySelector<>(
                JWSAlgorithm.HS256, new ImmutableSecret<>(secret.getBytes(StandardCharsets.UTF_8))));
        return processor.process(token, null);
    }

    @Nested
    class WhenVerifiedWithNimbus {

        @Test
        void shouldCarryTheMemberClaimsWhenMintedForAMember() throws Exception {
            JWTClaimsSet claims = verify(minter.member("demo-abc123-17"), SECRET);

            assertThat(claims.getSubject()).isEqualTo("demo-abc123-17");
            assertThat(claims.getStringListClaim("roles")).isEmpty();
            assertThat(claims.getIssueTime()).isEqualTo(Date.from(now));
            assertThat(claims.getExpirationTime()).isEqualTo(Date.from(now.plus(Duration.ofHours(1))));
        }

        @Test
        void shouldCarryTheAdminRoleWhenMintedForAnOperator() throws Exception {
            JWTClaimsSet claims = verify(minter.operator("demo-abc123-operator"), SECRET);

            assertThat(claims.getStringListClaim("roles")).containsExactly("coupon-admin");
        }

        @Test
        void shouldBeRejectedWhenVerifiedWithAnotherSecret() {
            String token = minter.member("m-1");

            assertThatThrownBy(() -> verify(token, SECRET.replace('f', 'g'))).isInstanceOf(BadJOSEException.class);
        }

        @Test
        void shouldBeRejectedWhenExpired() {
            JwtMinter past = new JwtMinter(
                    SECRET, Clock.fixed(now.minus(Duration.ofHours(2)), ZoneOffset.UTC), Duration.ofHours(1));

            assertThatThrownBy(() -> verify(past.member("m-1"), SECRET)).isInstanceOf(BadJOSEException.class);
        }
    }

    @Nested
    class WhenTakenApart {

        private final String token = minter.mint("demo-x.y:z_1", List.of("coupon-admin"));
        private final String[] parts = token.split("\\.");

        @Test
        void shouldBeThreeUnpaddedBase64UrlParts() {
            assertThat(parts).hasSize(3);
            assertThat(token).doesNotContain("=", "+", "/");
        }

        @Test
        void shouldHaveTheHs256Header() {
            assertThat(decode(parts[0])).isEqualTo(JSON.readTree("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"));
        }

        @Test
        void shouldHaveTheClaimsAsJson() {
            assertThat(decode(parts[1]))
                    .isEqualTo(JSON.readTree("{\"sub\":\"demo-x.y:z_1\",\"roles\":[\"coupon-admin\"],\"iat\":"
                            + now.getEpochSecond() + ",\"exp\":" + (now.getEpochSecond() + 3600) + "}"));
        }

        @Test
        void shouldBeSignedWithHmacSha256OverHeaderDotClaims() throws Exception {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(SECRET.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            byte[] expected = mac.doFinal((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));

            assertThat(Base64.getUrlDecoder().decode(parts[2])).isEqualTo(expected);
        }

        /** The JSON of a part, read as a tree: the order of its fields does not matter. */
        private JsonNode decode(String part) {
            return JSON.readTree(new String(Base64.getUrlDecoder().decode(part), StandardCharsets.UTF_8));
        }
    }

    @Nested
    class WhenGivenBadInput {

        @Test
        void shouldRefuseASecretShorterThan32Bytes() {
            assertThatThrownBy(() -> new JwtMinter("too-short", Clock.systemUTC(), Duration.ofMinutes(1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("32 bytes");
        }

        @Test
        void shouldRefuseASubjectTheApiWouldNot() {
            assertThatThrownBy(() -> minter.member("has space")).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> minter.member("x".repeat(65))).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> minter.member("")).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldRefuseARoleThatWouldNeedEscaping() {
            assertThatThrownBy(() -> minter.mint("m-1", List.of("a\"b"))).isInstanceOf(IllegalArgumentException.class);
        }

        @Test
        void shouldAcceptASubjectOf64Characters() throws Exception {
            String subject = "a".repeat(64);

            assertThat(verify(minter.member(subject), SECRET).getSubject()).isEqualTo(subject);
        }
    }
}
