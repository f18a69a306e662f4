package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.stream.IntStream;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an app does before asking for an event with a proof-of-work check (docs/http-api.md, "Events for some members,
 * and human checks"): gets its challenge ({@code GET /api/v1/coupons/{id}/challenge}) and finds a nonce such that
 * the SHA-256 of {@code <challenge>:<nonce>} starts with the asked zero bits. {@code crowd --proof-of-work BITS} solves
 * every member's before the crowd, on every core, and says what it took.
 */
final class ProofsOfWork {

    private ProofsOfWork() {}

    /** Each member's {@code X-Coupon-Proof}, in the order of {@code tokens}. */
    static String[] solveAll(LoadRunner http, JsonMapper json, long couponId, String[] tokens, PrintStream err) {
        long started = System.nanoTime();
        String path = "/api/v1/coupons/" + couponId + "/challenge";
        String[] challenges = new String[tokens.length];
        int[] bits = new int[tokens.length];
        int[][] argon2 = new int[tokens.length][]; // memory KiB and passes of an argon2id challenge, null for sha256
        Flux.range(0, tokens.length)
                .flatMap(
                        m -> http.send(HttpCall.get(path, tokens[m])).doOnNext(answer -> {
                            JsonNode body = JsonBodies.parse(json, answer.body());
                            if (answer.status() != 200
                                    || !body.path("challenge").isString()) {
                                throw new IllegalStateException(
                                        "the challenge: expected 200, got " + answer.status() + " " + answer.body());
                            }
                            challenges[m] = body.path("challenge").asString();
                            bits[m] = body.path("difficultyBits").asInt();
                            if ("argon2id".equals(body.path("algorithm").asString())) {
                                argon2[m] = new int[] {
                                    body.path("argon2").path("memoryKiB").asInt(),
                                    body.path("argon2").path("iterations").asInt()
                                };
                            }
                        }),
                        64)
                .blockLast();
        long fetched = System.nanoTime();
        String[] proofs = IntStream.range(0, tokens.length)
                .parallel()
                .mapToObj(m -> argon2[m] == null
                        ? solve(challenges[m], bits[m])
                        : solveArgon2id(challenges[m], bits[m], argon2[m][0], argon2[m][1]))
                .toArray(String[]::new);
        err.printf(
                Locale.ROOT,
                "proof of work: %,d challenges fetched in %.2f s, solved in %.2f s on %d cores (%.1f ms each on one)%n",
                tokens.length,
                (fetched - started) / 1e9,
                (System.nanoTime() - fetched) / 1e9,
                Runtime.getRuntime().availableProcessors(),
                (System.nanoTime() - fetched) / 1e6 * Runtime.getRuntime().availableProcessors() / tokens.length);
        return proofs;
    }

    /** The first nonce from 0 up whose proof has at least {@code bits} leading zero bits. */
    static String solve(String challenge, int bits) {
        MessageDigest sha256;
        try {
            sha256 = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException impossible) {
            throw new IllegalStateException(impossible);
        }
        for (long nonce = 0; ; nonce++) {
            String proof = challenge + ":" + nonce;
            if (leadingZeroBits(sha256.digest(proof.getBytes(StandardCharsets.UTF_8))) >= bits) {
                return proof;
            }
        }
    }

    /** The memory-hard rule of an {@code argon2id} challenge (docs/http-api.md). */
    static String solveArgon2id(String challenge, int bits, int memoryKib, int iterations) {
        org.bouncycastle.crypto.params.Argon2Parameters parameters =
                new org.bouncycastle.crypto.params.Argon2Parameters.Builder(
                                org.bouncycastle.crypto.params.Argon2Parameters.ARGON2_id)
                        .withVersion(org.bouncycastle.crypto.params.Argon2Parameters.ARGON2_VERSION_13)
                        .withMemoryAsKB(memoryKib)
                        .withIterations(iterations)
                        .withParallelism(1)
                        .withSalt(challenge.getBytes(StandardCharsets.UTF_8))
                        .build();
        byte[] hash = new byte[32];
        for (long nonce = 0; ; nonce++) {
            String proof = challenge + ":" + nonce;
            var argon2 = new org.bouncycastle.crypto.generators.Argon2BytesGenerator();
            argon2.init(parameters);
            argon2.generateBytes(proof.getBytes(StandardCharsets.UTF_8), hash);
            if (leadingZeroBits(hash) >= bits) {
                return proof;
            }
        }
    }

    static int leadingZeroBits(byte[] digest) {
        int zeros = 0;
        for (byte b : digest) {
            if (b != 0) {
                return zeros + Integer.numberOfLeadingZeros(b & 0xff) - 24;
            }
            zeros += 8;
        }
        return zeros;
    }
}
