package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** COUPON_DRAW_SEED_KEY: required outside the local profile, seeds sealed and opened, receipts signed, rotation. */
class DrawKeysTest {

    private static final String OLD = "an-old-draw-seed-key-of-at-least-32-bytes";
    private static final String NEW = "a-new-draw-seed-key-of-at-least-32-bytes!";

    @Test
    void shouldRefuseToStartOutsideTheLocalProfileWithoutAKeyOfItsOwn() {
        assertThatThrownBy(() -> DrawKeys.fromSetting("", false))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("COUPON_DRAW_SEED_KEY");
        assertThatThrownBy(() -> DrawKeys.fromSetting(DrawKeys.LOCAL_KEY, false))
                .hasMessageContaining("public local default");
        assertThatThrownBy(() -> DrawKeys.fromSetting("too-short", false)).hasMessageContaining("at least 32");
        assertThat(DrawKeys.fromSetting("", true).publicKeys()).hasSize(1);
    }

    @Test
    void shouldSealASeedSoThatOnlyItsKeyOpensIt() {
        byte[] seed = DrawRules.newSeed();
        byte[] sealed = DrawKeys.of(OLD).seal(seed);
        assertThat(sealed).hasSize(8 + 12 + 32 + 16);
        assertThat(java.util.Arrays.equals(sealed, 20, 52, seed, 0, 32))
                .as("not the seed in plain")
                .isFalse();
        assertThat(DrawKeys.of(OLD).open(sealed)).isEqualTo(seed);
        assertThat(DrawKeys.of(NEW, OLD).open(sealed)).as("after a rotation").isEqualTo(seed);
        assertThatThrownBy(() -> DrawKeys.of(NEW).open(sealed)).hasMessageContaining("no longer holds");
        sealed[30] ^= 1;
        assertThatThrownBy(() -> DrawKeys.of(OLD).open(sealed)).hasMessageContaining("does not open");
    }

    @Test
    void shouldSignWithTheCurrentKeyAndPublishEveryKey() throws Exception {
        DrawKeys rotated = DrawKeys.of(NEW, OLD);
        assertThat(rotated.publicKeys()).hasSize(2);
        assertThat(rotated.publicKeys().get(1))
                .isEqualTo(DrawKeys.of(OLD).publicKeys().getFirst());
        DrawKeys.Signed signed = rotated.sign("hello");
        DrawKeys.PublicKey current = rotated.publicKeys().getFirst();
        assertThat(signed.keyId()).isEqualTo(current.keyId());
        assertThat(DrawKeys.of(NEW).publicKeys().getFirst())
                .as("every instance with the key derives the same service key")
                .isEqualTo(current);

        Signature verifier = Signature.getInstance("Ed25519");
        verifier.initVerify(KeyFactory.getInstance("Ed25519")
                .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(current.publicKey()))));
        verifier.update("hello".getBytes(StandardCharsets.UTF_8));
        assertThat(verifier.verify(Base64.getUrlDecoder().decode(signed.signature())))
                .isTrue();
    }
}
