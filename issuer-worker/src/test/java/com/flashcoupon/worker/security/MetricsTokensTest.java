package com.flashcoupon.worker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The worker refuses to protect its metrics with a secret that protects nothing, as the api refuses to start. */
class MetricsTokensTest {

    private static MetricsSettings.Jwt secret(String secret) {
        return new MetricsSettings.Jwt(secret, "", "", "", Duration.ofSeconds(30), Duration.ofSeconds(30));
    }

    @ParameterizedTest
    @ValueSource(strings = {"%s", "%s\n", " %s", "x%s-y"})
    void shouldRefuseTheLocalSecretOrOneThatContainsItOutsideTheLocalProfile(String shape) {
        String secret = shape.formatted(MetricsTokens.LOCAL_SECRET);
        assertThatThrownBy(() -> MetricsTokens.decoder(secret(secret), false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("local default");
        assertThat(MetricsTokens.decoder(secret(secret), true)).isNotNull();
    }

    @Test
    void shouldRefuseAShortOrMissingSecretAndAJwkSetWithoutIssuerAndAudience() {
        assertThatThrownBy(() -> MetricsTokens.decoder(secret("short"), false))
                .hasMessageContaining("at least 32 bytes");
        assertThatThrownBy(() -> MetricsTokens.decoder(secret(""), false)).hasMessageContaining("COUPON_JWT_SECRET");
        assertThatThrownBy(() -> MetricsTokens.decoder(
                        new MetricsSettings.Jwt(
                                "", "https://idp.example/jwks", "", "", Duration.ofSeconds(30), Duration.ofSeconds(30)),
                        false))
                .hasMessageContaining("COUPON_JWT_ISSUER");
        assertThat(MetricsTokens.decoder(
                        new MetricsSettings.Jwt(
                                "",
                                "https://idp.example/jwks",
                                "https://idp.example",
                                "coupon-api",
                                Duration.ofSeconds(30),
                                Duration.ofSeconds(30)),
                        false))
                .isNotNull();
    }
}
