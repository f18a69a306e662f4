package com.flashcoupon.client;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The proof of work of docs/http-api.md: a {@code nonce} such that the SHA-256 of {@code <challenge>:<nonce>} starts
 * with at least {@code bits} zero bits; {@code <challenge>:<nonce>} is sent as {@code X-Coupon-Proof}. Run off the
 * caller's thread (the client's solver thread): 16 bits take about 65,000 hashes, a fraction of a second on a phone.
 */
final class ProofOfWork {

    private ProofOfWork() {}

    static String solve(String challenge, int bits) {
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
