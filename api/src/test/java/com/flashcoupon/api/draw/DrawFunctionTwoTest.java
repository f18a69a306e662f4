package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HexFormat;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** Draw functions 2 and 3's worked examples in docs/architecture.md ("Function 2", "Function 3"), figure by figure. */
class DrawFunctionTwoTest {

    private static final HexFormat HEX = HexFormat.of();

    @Test
    void shouldComputeTheDocumentedExample() {
        byte[] seed = bytes(0);
        byte[] key = bytes(32);
        DrawRules.Leaves leaves = DrawRules.leaves(2, key, List.of("m-1", "m-10", "m-2", "m-3", "m-4"));
        assertThat(DrawRules.pseudonym(key, "m-10"))
                .isEqualTo("b1daf770db0cf339ea0706485fc62c68959d3721191a1ce7808bbb89b9743ff3");
        assertThat(leaves.inOrder().stream().map(leaf -> leaves.member().get(leaf)))
                .containsExactly("m-3", "m-2", "m-10", "m-1", "m-4");
        DrawRules.Outcome outcome = DrawRules.draw(seed, leaves.inOrder(), 3);
        assertThat(DrawRules.commitment(seed))
                .isEqualTo("630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
        assertThat(HEX.formatHex(outcome.entrantsDigest()))
                .isEqualTo("69e499fd3d8d39fce6b3fa2a7b1f3ad08bdd05cbf7b2bc2c7968581edec3db73");
        assertThat(HEX.formatHex(DrawRules.ticket(seed, outcome.entrantsDigest(), DrawRules.pseudonym(key, "m-10"))))
                .isEqualTo("03b19895dd1b68b83f2a337b8fd0ca613edd53849022e6a0ff54c7c954931648");
        assertThat(outcome.placed().stream().map(leaf -> leaves.member().get(leaf)))
                .containsExactly("m-10", "m-2", "m-1");
    }

    @Test
    void shouldComputeTheDocumentedExampleOfFunctionThree() {
        byte[] seed = bytes(0);
        byte[] key = bytes(32);
        byte[] signature = new byte[48];
        IntStream.range(0, 48).forEach(i -> signature[i] = (byte) (64 + i));
        byte[] randomness = DrawBeacon.sha256(signature);
        assertThat(HEX.formatHex(randomness))
                .isEqualTo("6f8c40508471ed66a982c13dd5275455008ec1cd33fdbd2351a5d8c8f1574564");
        byte[] ticketKey = DrawRules.beaconKey(seed, randomness);
        assertThat(HEX.formatHex(ticketKey))
                .isEqualTo("a3901e1d6510dbd7eb4b79455759ab2456b1e8d1993ac495fffc1a0323d9f8cd");
        DrawRules.Leaves leaves = DrawRules.leaves(2, key, List.of("m-1", "m-10", "m-2", "m-3", "m-4"));
        DrawRules.Outcome outcome = DrawRules.draw(ticketKey, leaves.inOrder(), 3);
        assertThat(HEX.formatHex(outcome.entrantsDigest()))
                .isEqualTo("69e499fd3d8d39fce6b3fa2a7b1f3ad08bdd05cbf7b2bc2c7968581edec3db73");
        assertThat(HEX.formatHex(
                        DrawRules.ticket(ticketKey, outcome.entrantsDigest(), DrawRules.pseudonym(key, "m-3"))))
                .isEqualTo("1e80e83bc7a9da8498acdc56d6df02114164b8956838c94ae9c29ddfe69c91a0");
        assertThat(outcome.placed().stream().map(leaf -> leaves.member().get(leaf)))
                .containsExactly("m-2", "m-3", "m-10");
    }

    @Test
    void shouldTakeTheFirstBeaconRoundPublishedAfterDrawAt() {
        // round r is published at genesis + (r - 1) * period
        assertThat(DrawBeacon.round(1_000, 30, java.time.Instant.ofEpochSecond(999)))
                .isEqualTo(1);
        assertThat(DrawBeacon.round(1_000, 30, java.time.Instant.ofEpochSecond(1_000)))
                .isEqualTo(2);
        assertThat(DrawBeacon.round(1_000, 30, java.time.Instant.ofEpochSecond(1_029)))
                .isEqualTo(2);
        assertThat(DrawBeacon.round(1_000, 30, java.time.Instant.ofEpochSecond(1_030)))
                .isEqualTo(3);
    }

    private static byte[] bytes(int from) {
        byte[] bytes = new byte[32];
        IntStream.range(0, 32).forEach(i -> bytes[i] = (byte) (from + i));
        return bytes;
    }
}
