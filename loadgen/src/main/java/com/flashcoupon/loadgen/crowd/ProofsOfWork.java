package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.client.ProofOfWork;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.io.PrintStream;
import java.util.Locale;
import java.util.stream.IntStream;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * What an app does before asking for an event with a proof-of-work check (docs/http-api.md, "Events for some members,
 * and human checks"): gets its challenge ({@code GET /api/v1/coupons/{id}/challenge}) and finds a nonce such that
 * the SHA-256 of {@code <challenge>:<nonce>} starts with the asked zero bits. {@code crowd --proof-of-work BITS} solves
 * every member's before the crowd, on every core (with the client library's solvers), and says what it took.
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
                        ? ProofOfWork.solve(challenges[m], bits[m])
                        : ProofOfWork.solveArgon2id(challenges[m], bits[m], argon2[m][0], argon2[m][1]))
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
}
