package com.flashcoupon.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * The proof of work of docs/http-api.md: a {@code nonce} such that the SHA-256 of {@code <challenge>:<nonce>} starts
 * with at least {@code bits} zero bits; {@code <challenge>:<nonce>} is sent as {@code X-Coupon-Proof}. Run off the
 * caller's thread (the client's solver thread): 16 bits take about 65,000 hashes, a fraction of a second on a phone.
 * {@link FlashCouponClient} solves its challenges itself; these are public for callers that fetch challenges their own
 * way (the project's load generator does, for a whole crowd at once).
 */
public final class ProofOfWork {

    private ProofOfWork() {}

    /** The first {@code <challenge>:<nonce>}, nonce from 0 up, whose SHA-256 starts with {@code bits} zero bits. */
    public static String solve(String challenge, int bits) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java platform", e);
        }
        for (long nonce = 0; ; nonce++) {
            if ((nonce & 0xFFF) == 0 && Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted while solving the proof of work");
            }
            String proof = challenge + ":" + nonce;
            if (zeroBits(sha256.digest(proof.getBytes(StandardCharsets.UTF_8))) >= bits) {
                return proof;
            }
        }
    }

    /**
     * The memory-hard rule of an {@code argon2id} challenge: the Argon2id (version 0x13, parallelism 1, 32 bytes) of
     * {@code <challenge>:<nonce>}, salted with the challenge, starts with at least {@code bits} zero bits.
     */
    public static String solveArgon2id(String challenge, int bits, int memoryKib, int iterations) {
        Argon2Parameters parameters = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memoryKib)
                .withIterations(iterations)
                .withParallelism(1)
                .withSalt(challenge.getBytes(StandardCharsets.UTF_8))
                .build();
        byte[] hash = new byte[32];
        for (long nonce = 0; ; nonce++) {
            if (Thread.currentThread().isInterrupted()) {
                throw new IllegalStateException("interrupted while solving the proof of work");
            }
            String proof = challenge + ":" + nonce;
            Argon2BytesGenerator argon2 = new Argon2BytesGenerator();
            argon2.init(parameters);
            argon2.generateBytes(proof.getBytes(StandardCharsets.UTF_8), hash);
            if (zeroBits(hash) >= bits) {
                return proof;
            }
        }
    }

    static int zeroBits(byte[] hash) {
        int zeros = 0;
        for (byte b : hash) {
            if (b == 0) {
                zeros += 8;
                continue;
            }
            zeros += Integer.numberOfLeadingZeros(b & 0xFF) - 24;
            break;
        }
        return zeros;
    }
}
