package com.flashcoupon.api.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.support.JwksServer;
import com.nimbusds.jose.jwk.RSAKey;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.security.oauth2.jwt.JwtException;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.test.scheduler.VirtualTimeScheduler;

/**
 * JWK mode's decoder against a local JWK set endpoint that counts its fetches, on a virtual clock: tokens naming
 * unknown keys ({@code kid}), sent by anyone without credentials, never make it fetch more than once per refresh
 * interval, and a key the identity provider adds is still picked up within the interval.
 */
class JwkSetRefreshTest {

    private static final Duration INTERVAL = Duration.ofSeconds(30);

    private final VirtualTimeScheduler clock = VirtualTimeScheduler.create();
    private JwksServer idp;
    private ReactiveJwtDecoder decoder;

    @BeforeEach
    void start() throws IOException {
        idp = new JwksServer();
        decoder = JwtDecoders.create(
                new ApiProperties.Jwt(
                        null, idp.uri(), JwksServer.ISSUER, JwksServer.AUDIENCE, Duration.ofSeconds(30), INTERVAL),
                false,
                WebClient.create(),
                clock);
    }

    @AfterEach
    void stop() {
        idp.close();
        clock.dispose();
    }

    private Jwt decode(String token) {
        return decoder.decode(token).block(Duration.ofSeconds(30));
    }

    @Test
    void shouldFetchOnceWhateverTheNumberOfTokensWithUnknownKeyIds() {
        RSAKey current = JwksServer.newKey("key-1");
        idp.serve(current);

        assertThat(decode(JwksServer.token(current, "m-1", List.of())).getSubject())
                .isEqualTo("m-1");
        for (int i = 0; i < 200; i++) {
            assertThatThrownBy(() -> decode(JwksServer.randomKidToken())).isInstanceOf(JwtException.class);
        }
        assertThat(decode(JwksServer.token(current, "m-2", List.of())).getSubject())
                .isEqualTo("m-2");

        assertThat(idp.fetches()).as("fetches of the JWK set").isEqualTo(1);
    }

    @Test
    void shouldPickUpANewSigningKeyWithinTheInterval() {
        RSAKey old = JwksServer.newKey("key-old");
        RSAKey rotated = JwksServer.newKey("key-new");
        idp.serve(old);
        assertThat(decode(JwksServer.token(old, "m-1", List.of())).getSubject()).isEqualTo("m-1");

        idp.serve(old, rotated);
        String signedWithTheNewKey = JwksServer.token(rotated, "m-1", List.of());
        assertThatThrownBy(() -> decode(signedWithTheNewKey))
                .as("before the interval is over: the set fetched last is all the api knows")
                .isInstanceOf(JwtException.class);

        clock.advanceTimeBy(INTERVAL);
        assertThat(decode(signedWithTheNewKey).getSubject()).isEqualTo("m-1");
        assertThat(decode(JwksServer.token(old, "m-1", List.of())).getSubject()).isEqualTo("m-1");
        for (int i = 0; i < 50; i++) {
            assertThatThrownBy(() -> decode(JwksServer.randomKidToken())).isInstanceOf(JwtException.class);
        }

        assertThat(idp.fetches()).as("one fetch per interval").isEqualTo(2);
    }

    @Test
    void shouldAskAProviderThatIsDownOnlyOncePerInterval() {
        idp.answer(503);
        for (int i = 0; i < 20; i++) {
            assertThatThrownBy(() -> decode(JwksServer.randomKidToken())).isInstanceOf(RuntimeException.class);
        }
        assertThat(idp.fetches()).isEqualTo(1);

        RSAKey key = JwksServer.newKey("key-1");
        idp.serve(key);
        idp.answer(200);
        clock.advanceTimeBy(INTERVAL);
        assertThat(decode(JwksServer.token(key, "m-1", List.of())).getSubject())
                .as("after the interval, the provider that is back")
                .isEqualTo("m-1");
        assertThat(idp.fetches()).isEqualTo(2);
    }
}
