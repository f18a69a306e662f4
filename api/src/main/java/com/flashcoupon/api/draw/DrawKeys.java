package com.flashcoupon.api.draw;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.NamedParameterSpec;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The draw's secrets, from {@code COUPON_DRAW_SEED_KEY} (coupon.draw.seed-key: one or more keys of at least 32 bytes,
 * comma-separated, the first current, the others earlier ones kept for rotation). From each key two keys are derived
 * (HMAC-SHA256 of the key over a label): an AES-256-GCM key that seals every draw's seed at rest until the draw is
 * recorded, and an Ed25519 key pair (the service key) that signs members' entry receipts. The current key seals and
 * signs; every key opens seeds it sealed and has its public key published ({@code /.well-known/flash-coupon-keys}).
 * Outside the local profile the api does not start without it, or with the public local one. Plain Java.
 */
public final class DrawKeys {

    static final String SETTING = "COUPON_DRAW_SEED_KEY";
    static final String LOCAL_KEY = "flash-coupon-local-draw-seed-key-do-not-use-in-production";
    static final int MIN_KEY_BYTES = 32;

    private static final int ID_BYTES = 8;
    private static final int IV_BYTES = 12;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** One key's derived keys and its id: the first 8 bytes, in hex, of the SHA-256 of its public key (X.509). */
    record Key(String id, SecretKeySpec aes, KeyPair signing) {}

    private final List<Key> keys;

    private DrawKeys(List<Key> keys) {
        this.keys = keys;
    }

    public static DrawKeys fromSetting(String configured, boolean localProfile) {
        String setting = configured == null ? "" : configured.strip();
        if (setting.isEmpty()) {
            if (!localProfile) {
                throw new IllegalStateException("Set " + SETTING + " (coupon.draw.seed-key, at least " + MIN_KEY_BYTES
                        + " bytes): the api keeps every fair start's seed encrypted with it until the draw and signs"
                        + " entry receipts with a key derived from it. Only the local profile may run without it.");
            }
            setting = LOCAL_KEY;
        }
        List<Key> keys = new ArrayList<>();
        String[] parts = setting.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            byte[] secret = parts[i].strip().getBytes(StandardCharsets.UTF_8);
            if (secret.length < MIN_KEY_BYTES) {
                throw new IllegalStateException(SETTING + ": key " + (i + 1) + " of " + parts.length + " has "
                        + secret.length + " bytes (UTF-8), at least " + MIN_KEY_BYTES + " are needed. Its value is"
                        + " not shown.");
            }
            if (!localProfile && parts[i].contains(LOCAL_KEY)) {
                throw new IllegalStateException(SETTING + " is, or contains, the public local default; set a key of"
                        + " your own outside the local profile.");
            }
            keys.add(derive(secret));
        }
        return new DrawKeys(keys);
    }

    /** Keys for tests and tools, the first current. */
    public static DrawKeys of(String... keys) {
        return fromSetting(String.join(",", keys), false);
    }

    private static Key derive(byte[] secret) {
        try {
            SecretKeySpec aes = new SecretKeySpec(hmac(secret, "flash-coupon draw seed encryption"), "AES");
            byte[] signingSeed = hmac(secret, "flash-coupon entry receipts");
            KeyPairGenerator generator = KeyPairGenerator.getInstance("Ed25519");
            // Ed25519's private key is 32 bytes the generator takes from its source of randomness: here, derived ones
            generator.initialize(NamedParameterSpec.ED25519, new FixedBytes(signingSeed));
            KeyPair pair = generator.generateKeyPair();
            byte[] id =
                    MessageDigest.getInstance("SHA-256").digest(pair.getPublic().getEncoded());
            return new Key(HexFormat.of().formatHex(Arrays.copyOf(id, ID_BYTES)), aes, pair);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("Ed25519, AES-GCM or HMAC-SHA256 is missing from this JDK", e);
        }
    }

    /** A seed sealed with the current key: its id (8 bytes), a random IV (12), the ciphertext and the GCM tag. */
    public byte[] seal(byte[] seed) {
        Key key = keys.getFirst();
        byte[] iv = new byte[IV_BYTES];
        RANDOM.nextBytes(iv);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key.aes(), new GCMParameterSpec(128, iv));
            byte[] sealed = cipher.doFinal(seed);
            return ByteBuffer.allocate(ID_BYTES + IV_BYTES + sealed.length)
                    .put(HexFormat.of().parseHex(key.id()))
                    .put(iv)
                    .put(sealed)
                    .array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("sealing a seed failed", e);
        }
    }

    /** The seed a {@link #seal} gave, with whichever key sealed it; fails when none of the keys did or it was changed. */
    public byte[] open(byte[] sealed) {
        String id = HexFormat.of().formatHex(sealed, 0, ID_BYTES);
        Key key = keys.stream()
                .filter(k -> k.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("a seed sealed with key " + id + ", which " + SETTING
                        + " no longer holds: keep earlier keys after the current one until their draws are made"));
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(
                    Cipher.DECRYPT_MODE,
                    key.aes(),
                    new GCMParameterSpec(128, Arrays.copyOfRange(sealed, ID_BYTES, ID_BYTES + IV_BYTES)));
            return cipher.doFinal(sealed, ID_BYTES + IV_BYTES, sealed.length - ID_BYTES - IV_BYTES);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("a sealed seed does not open with key " + id + ": changed in MySQL?", e);
        }
    }

    /** The current service key's id and its Ed25519 signature (base64url, no padding) of the message's UTF-8 bytes. */
    public Signed sign(String message) {
        Key key = keys.getFirst();
        try {
            Signature signature = Signature.getInstance("Ed25519");
            signature.initSign(key.signing().getPrivate());
            signature.update(message.getBytes(StandardCharsets.UTF_8));
            return new Signed(key.id(), Base64.getUrlEncoder().withoutPadding().encodeToString(signature.sign()));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("signing failed", e);
        }
    }

    /** A signature and the id of the key that made it. */
    public record Signed(String keyId, String signature) {}

    /** Every service key's public half, the current one first: its id, and base64 of its X.509 encoding. */
    public List<PublicKey> publicKeys() {
        return keys.stream()
                .map(key -> new PublicKey(
                        key.id(),
                        "Ed25519",
                        Base64.getEncoder()
                                .encodeToString(key.signing().getPublic().getEncoded())))
                .toList();
    }

    /** A published service key. */
    public record PublicKey(String keyId, String algorithm, String publicKey) {}

    private static byte[] hmac(byte[] key, String label) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(label.getBytes(StandardCharsets.UTF_8));
    }

    /** A source of "randomness" that hands out fixed bytes: the derived Ed25519 private key. */
    private static final class FixedBytes extends SecureRandom {

        private final byte[] bytes;
        private int at;

        FixedBytes(byte[] bytes) {
            this.bytes = bytes.clone();
        }

        @Override
        public void nextBytes(byte[] out) {
            for (int i = 0; i < out.length; i++) {
                out[i] = bytes[at++ % bytes.length];
            }
        }
    }
}
