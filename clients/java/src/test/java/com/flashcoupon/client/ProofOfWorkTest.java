package com.flashcoupon.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;

/** The solver finds what the api checks: a proof whose SHA-256 starts with the asked zero bits. */
class ProofOfWorkTest {

    @Test
    void shouldFindAProofWithTheAskedLeadingZeroBits() throws Exception {
        String proof = ProofOfWork.solve("v1.42.1795740180.10.c2FsdA.bWFj", 10);

        assertThat(proof).startsWith("v1.42.1795740180.10.c2FsdA.bWFj:");
        byte[] digest = MessageDigest.getInstance("SHA-256").digest(proof.getBytes(StandardCharsets.UTF_8));
        assertThat(digest[0]).isZero();
        assertThat(digest[1] & 0xc0).isZero();
    }

    @Test
    void shouldCountLeadingZeroBits() {
        assertThat(ProofOfWork.zeroBits(new byte[] {0, 0x10, 1})).isEqualTo(11);
        assertThat(ProofOfWork.zeroBits(new byte[] {(byte) 0x80})).isZero();
        assertThat(ProofOfWork.zeroBits(new byte[] {0, 0})).isEqualTo(16);
    }
}
