package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.config.ApiProperties;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The api refuses to start on a secret that cannot protect anything; the message never shows the secret. */
class JwtDecodersTest {

    private static ApiProperties.Jwt secret(String secret) {
        return new ApiProperties.Jwt(secret, null, null, null, Duration.ofSeconds(30), Duration.ofSeconds(30));
    }

    @Test
    void shouldRefuseToStartWhenSecretIsShorterThan32Bytes() {
        assertThatThrownBy(() -> JwtDecoders.create(secret("short-secret-31-bytes-long-xxxx"), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("at least 32 bytes")
                .hasMessageNotContaining("short-secret");
    }

    @Test
    void shouldRefuseToStartWhenNeitherSecretNorJwkSetIsGiven() {
        assertThatThrownBy(() -> JwtDecoders.create(secret(""), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_JWT_SECRET");
    }

    @Test
    void shouldRefuseTheLocalDefaultSecretOutsideTheLocalProfile() {
        assertThatThrownBy(() -> JwtDecoders.create(secret(JwtDecoders.LOCAL_SECRET), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("local default");
        assertThat(JwtDecoders.create(secret(JwtDecoders.LOCAL_SECRET), true)).isNotNull();
    }

    @ParameterizedTest
    @ValueSource(strings = {"%s\n", "%s ", " %s", "\t%s\r\n", "x%s", "%s-and-more", "prefix-%s-suffix"})
    void shouldRefuseASecretThatContainsTheLocalDefaultOutsideTheLocalProfile(String shape) {
        String secret = shape.formatted(JwtDecoders.LOCAL_SECRET);

        assertThatThrownBy(() -> JwtDecoders.create(secret(secret), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("local default")
                .hasMessageNotContaining(JwtDecoders.LOCAL_SECRET);
    }

    @Test
    void shouldRefuseToStartWhenAJwkSetComesWithoutIssuerOrAudience() {
        String jwks = "https://idp.example/.well-known/jwks.json";
        assertThatThrownBy(() -> JwtDecoders.create(
                        new ApiProperties.Jwt(null, jwks, null, null, Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_JWT_ISSUER")
                .hasMessageContaining("COUPON_JWT_AUDIENCE");
        assertThatThrownBy(() -> JwtDecoders.create(
                        new ApiProperties.Jwt(
                                null,
                                jwks,
                                "https://idp.example",
                                null,
                                Duration.ofSeconds(30),
                                Duration.ofSeconds(30)),
                        false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_JWT_AUDIENCE")
                .hasMessageNotContaining("COUPON_JWT_ISSUER ");
        assertThatThrownBy(() -> JwtDecoders.create(
                        new ApiProperties.Jwt(
                                null, jwks, null, "coupon-api", Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_JWT_ISSUER");
        assertThat(JwtDecoders.create(
                        new ApiProperties.Jwt(
                                null,
                                jwks,
                                "https://idp.example",
                                "coupon-api",
                                Duration.ofSeconds(30),
                                Duration.ofSeconds(30)),
                        false))
                .isNotNull();
    }

    @Test
    void shouldCountBytesNotCharactersWhenSecretIsNonAscii() {
        // 11 characters, 33 bytes in UTF-8
        assertThat(JwtDecoders.create(secret("쿠폰쿠폰쿠폰쿠폰쿠폰쿠"), false)).isNotNull();
    }
}
