package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

/**
 * The proof of work's challenges and their check, without Redis or HTTP; and what they cost, printed
 * (POW-COST-FIGURE), never asserted: the api's check per admission, and a Java client's solve per difficulty.
 */
class ProofOfWorkTest {

    private static final Instant NOW = Instant.parse("2026-11-26T00:00:00Z");

    private final ProofOfWork proofs = new ProofOfWork(
            HumanCheckSettings.signedWith("a-secret-of-at-least-32-bytes-for-the-tests"),
            Clock.fixed(NOW, ZoneOffset.UTC),
            false);

    @Test
    void shouldAcceptASolvedProofForItsMemberAndEventOnly() {
        var challenge = proofs.challenge(42, "m-1", 10);
        String proof = ProofOfWork.solve(challenge.challenge(), 10);

        assertThat(challenge.challenge()).doesNotContain(":");
        assertThat(challenge.expiresAt()).isEqualTo(NOW.plusSeconds(120));
        assertThat(proofs.read(42, "m-1", proof)).isEqualTo("P10");
        assertThat(proofs.read(42, "m-2", proof)).isEqualTo("X");
        assertThat(proofs.read(43, "m-1", proof)).isEqualTo("X");
        assertThat(proofs.read(42, "m-1", challenge.challenge())).isEqualTo("X"); // no nonce
        assertThat(proofs.read(42, "m-1", "a-turnstile-token")).isEqualTo("?");
    }

    @Test
    void shouldRefuseAnExpiredChallenge() {
        var challenge = proofs.challenge(42, "m-1", 4);
        var later = new ProofOfWork(
                HumanCheckSettings.signedWith("a-secret-of-at-least-32-bytes-for-the-tests"),
                Clock.fixed(NOW.plusSeconds(121), ZoneOffset.UTC),
                false);

        assertThat(later.read(42, "m-1", ProofOfWork.solve(challenge.challenge(), 4)))
                .isEqualTo("X");
    }

    @Test
    void shouldAskAnArgon2idEventForAMemoryHardProofAndRefuseTheSha256Rule() {
        var challenge = proofs.challenge(42, "m-1", 3, true);
        assertThat(challenge.algorithm()).isEqualTo("argon2id");
        assertThat(challenge.argon2()).isEqualTo(new ProofOfWork.Argon2Parameters(1024, 1, 1));
        assertThat(challenge.challenge()).startsWith("a1.42.").doesNotContain(":");

        // the cheap rule: zero bits of SHA-256 over the same text; whatever its bits, it is not an Argon2id proof
        String cheap = null;
        for (long nonce = 0; cheap == null; nonce++) {
            String candidate = challenge.challenge() + ":" + nonce;
            if (ProofOfWork.leadingZeroBits(candidate) >= 10
                    && ProofOfWork.argon2ZeroBits(candidate, challenge.challenge(), 1024, 1) < 3) {
                cheap = candidate;
            }
        }
        assertThat(proofs.read(42, "m-1", cheap)).isEqualTo("X");
        String proof = ProofOfWork.solveArgon2(challenge.challenge(), 3, 1024, 1);
        assertThat(proofs.read(42, "m-1", proof)).isEqualTo("A3");
        assertThat(proofs.read(42, "m-2", proof)).isEqualTo("X");
        assertThat(proofs.read(43, "m-1", proof)).isEqualTo("X");

        // a SHA-256 challenge's proof reads P, which gate.lua refuses for an ARGON2ID event (GateScriptTest)
        assertThat(proofs.read(
                        42,
                        "m-1",
                        ProofOfWork.solve(proofs.challenge(42, "m-1", 8).challenge(), 8)))
                .isEqualTo("P8");
        assertThat(proofs.challenge(42, "m-1", 8).algorithm()).isEqualTo("sha256");
        assertThat(proofs.challenge(42, "m-1", 8).argon2()).isNull();
    }

    @Test
    void shouldNotLetAChallengeChangeItsArgon2Parameters() {
        var challenge = proofs.challenge(42, "m-1", 1, true);
        // a bot lowering the memory to 64 KiB breaks the MAC: the parameters are signed
        String cheaper = challenge.challenge().replace(".1024.1.", ".64.1.");
        assertThat(cheaper).isNotEqualTo(challenge.challenge());
        assertThat(proofs.read(42, "m-1", ProofOfWork.solveArgon2(cheaper, 1, 64, 1)))
                .isEqualTo("X");
    }

    @Test
    void printWhatArgon2idCosts() {
        var challenge = proofs.challenge(42, "m-1", 6, true);
        String proof = ProofOfWork.solveArgon2(challenge.challenge(), 6, 1024, 1);
        for (int i = 0; i < 20; i++) {
            proofs.read(42, "m-1", proof); // warm up
        }
        int checks = 100;
        long started = System.nanoTime();
        for (int i = 0; i < checks; i++) {
            assertThat(proofs.read(42, "m-1", proof)).isEqualTo("A6");
        }
        double verifyMicros = (System.nanoTime() - started) / 1e3 / checks;
        int solves = 20;
        started = System.nanoTime();
        for (int i = 0; i < solves; i++) {
            ProofOfWork.solveArgon2(proofs.challenge(42, "m-1", 6, true).challenge(), 6, 1024, 1);
        }
        System.out.printf(
                "POW-COST-FIGURE argon2id 1024 KiB, 1 pass, 6 bits (the defaults): the api's check %.0f µs per admission;"
                        + " a Java solver %.0f ms per solve (mean of %d)%n",
                verifyMicros, (System.nanoTime() - started) / 1e6 / solves, solves);
    }

    @Test
    void shouldCountLeadingZeroBits() {
        // SHA-256("abc") = ba7816bf...: 1011 1010: no leading zero bit
        assertThat(ProofOfWork.leadingZeroBits("abc")).isZero();
        String proof = ProofOfWork.solve("x", 12);
        assertThat(ProofOfWork.leadingZeroBits(proof)).isGreaterThanOrEqualTo(12);
    }

    @Test
    void printWhatItCosts() {
        var challenge = proofs.challenge(42, "m-1", 8);
        String proof = ProofOfWork.solve(challenge.challenge(), 8);
        int checks = 50_000;
        for (int i = 0; i < checks; i++) {
            proofs.read(42, "m-1", proof); // warm up
        }
        long started = System.nanoTime();
        for (int i = 0; i < checks; i++) {
            proofs.read(42, "m-1", proof);
        }
        System.out.printf(
                "POW-COST-FIGURE the api's check: %.1f µs per admission (%d checks, one thread)%n",
                (System.nanoTime() - started) / 1e3 / checks, checks);
        long hashes = 0;
        started = System.nanoTime();
        for (long nonce = 0; nonce < 1_000_000; nonce++) {
            hashes += ProofOfWork.leadingZeroBits(challenge.challenge() + ":" + nonce) >= 0 ? 1 : 0;
        }
        double perSecond = hashes / ((System.nanoTime() - started) / 1e9);
        for (int bits : new int[] {12, 14, 16, 18, 20}) {
            System.out.printf(
                    "POW-COST-FIGURE a Java solver at %.0f hashes/s: %d bits take %.2f s on average%n",
                    perSecond, bits, Math.pow(2, bits) / perSecond);
        }
    }
}
