package com.flashcoupon.api.web;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.HexFormat;
import javax.crypto.Cipher;
import javax.crypto.spec.IvParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Request ids that reveal nothing: 64 bits of an AES-CTR keystream per thread (a key drawn once per instance from a
 * secure generator, a random counter block per thread), taken 64 ids at a time. An answer's id says nothing about
 * another answer's, nor about any state the api keeps: not a generator shared with anything else (an id drawn from
 * {@code ThreadLocalRandom} gave away the thread's generator, and with it what else that thread drew), and never a
 * read of an entropy source on the event loop (the key and the counter blocks are taken once). Measured on the
 * development machine: about 60 ns more per id than the generator it replaces, some 0.04% of an admission's CPU.
 */
final class RequestIds {

    private static final int IDS_PER_BLOCK = 64;
    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom SEEDS = new SecureRandom();
    private static final SecretKeySpec KEY = key();

    private static final ThreadLocal<Stream> STREAMS = ThreadLocal.withInitial(Stream::new);

    private RequestIds() {}

    /** A new id: 16 lower-case hex digits. */
    static String next() {
        return HEX.toHexDigits(STREAMS.get().nextLong());
    }

    private static SecretKeySpec key() {
        byte[] key = new byte[16];
        SEEDS.nextBytes(key);
        return new SecretKeySpec(key, "AES");
    }

    /** One thread's keystream. */
    private static final class Stream {

        private final Cipher cipher;
        private final byte[] zeros = new byte[IDS_PER_BLOCK * Long.BYTES];
        private final byte[] block = new byte[zeros.length];
        private int used = IDS_PER_BLOCK;

        Stream() {
            byte[] counter = new byte[16];
            synchronized (SEEDS) {
                SEEDS.nextBytes(counter);
            }
            try {
                cipher = Cipher.getInstance("AES/CTR/NoPadding");
                cipher.init(Cipher.ENCRYPT_MODE, KEY, new IvParameterSpec(counter));
            } catch (GeneralSecurityException e) {
                throw new IllegalStateException("AES/CTR is missing from this JDK", e);
            }
        }

        long nextLong() {
            if (used == IDS_PER_BLOCK) {
                try {
                    cipher.update(zeros, 0, zeros.length, block, 0);
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("AES/CTR failed", e);
                }
                used = 0;
            }
            int at = used++ * Long.BYTES;
            long value = 0;
            for (int i = 0; i < Long.BYTES; i++) {
                value = (value << 8) | (block[at + i] & 0xff);
            }
            return value;
        }
    }
}
