package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class InvariantsTest {

    @Nested
    class WalletsWithinStock {

        @Test
        void shouldPassWhenEveryPlaceBecameAWallet() {
            Check check = Invariants.walletsWithinStock(5_000, 5_000, 5_000, 0, 0);

            assertThat(check.passed()).isTrue();
            assertThat(check.detail())
                    .isEqualTo("5,000 wallet rows, total quantity 5,000, expected 5,000 (5,000 admitted - 0 FAILED)");
        }

        @Test
        void shouldCountFailedPlacesOut() {
            assertThat(Invariants.walletsWithinStock(4_990, 5_000, 5_000, 10, 0).passed())
                    .isTrue();
            assertThat(Invariants.walletsWithinStock(5_000, 5_000, 5_000, 10, 0).passed())
                    .isFalse();
        }

        @Test
        void shouldFailWhenWalletsExceedStock() {
            assertThat(Invariants.walletsWithinStock(5_001, 5_000, 5_001, 0, 0).passed())
                    .isFalse();
        }

        @Test
        void shouldFailWhenAPlaceGivenHasNoWallet() {
            assertThat(Invariants.walletsWithinStock(4_000, 5_000, 5_000, 0, 0).passed())
                    .isFalse();
        }

        @Test
        void shouldHoldForACrowdSmallerThanTheStock() {
            assertThat(Invariants.walletsWithinStock(100, 5_000, 100, 0, 0).passed())
                    .isTrue();
        }

        @Test
        void shouldAllowWalletsOfMembersWhoseAnswerWasLost() {
            Check check = Invariants.walletsWithinStock(4_998, 5_000, 4_995, 0, 4);

            assertThat(check.passed()).isTrue();
            assertThat(check.detail()).endsWith(" + up to 4 whose request got no answer");
            assertThat(Invariants.walletsWithinStock(5_000, 5_000, 4_995, 0, 4).passed())
                    .isFalse();
        }
    }

    @Nested
    class OneWalletPerMember {

        @Test
        void shouldPassWhenNoMemberHasTwo() {
            assertThat(Invariants.oneWalletPerMember(List.of(), 0).passed()).isTrue();
        }

        @Test
        void shouldFailAndNameMembersWithSeveralWallets() {
            Check check = Invariants.oneWalletPerMember(List.of("m-1", "m-2"), 0);

            assertThat(check.passed()).isFalse();
            assertThat(check.detail()).contains("2 members with several wallet rows (m-1, m-2)");
        }

        @Test
        void shouldFailWhenAMemberWasAnswered202Twice() {
            assertThat(Invariants.oneWalletPerMember(List.of(), 1).passed()).isFalse();
        }
    }

    @Nested
    class EveryAdmissionEnds {

        @Test
        void shouldPassWhenWalletsAndToldFailuresCoverTheAdmitted() {
            Check check = Invariants.everyAdmissionEnds(Set.of("a", "b", "c"), List.of("a", "b"), Set.of("c"), 1);

            assertThat(check.passed()).isTrue();
            assertThat(check.detail()).contains("3 admitted", "1 FAILED, 1 of them told FAILED");
        }

        @Test
        void shouldFailWhenAnAdmittedMemberHasNeither() {
            Check check = Invariants.everyAdmissionEnds(Set.of("a", "b", "c"), List.of("a"), Set.of("c"), 1);

            assertThat(check.passed()).isFalse();
            assertThat(check.detail()).contains("1 without wallet or FAILED result (b)");
        }

        @Test
        void shouldFailWhenAFailedMemberWasNotTold() {
            assertThat(Invariants.everyAdmissionEnds(Set.of("a", "c"), List.of("a"), Set.of("c"), 0)
                            .passed())
                    .isFalse();
        }

        @Test
        void shouldFailWhenAMemberHasBothAWalletAndAFailure() {
            assertThat(Invariants.everyAdmissionEnds(Set.of("a"), List.of("a"), Set.of("a"), 1)
                            .passed())
                    .isFalse();
        }

        @Test
        void shouldJudgeWalletsAndFailuresAloneWhenNobodyAskedTheStatusEndpoint() {
            Check covered = Invariants.everyAdmissionEnds(Set.of("a", "c"), List.of("a"), Set.of("c"));
            Check missing = Invariants.everyAdmissionEnds(Set.of("a", "b", "c"), List.of("a"), Set.of("c"));

            assertThat(covered.passed()).isTrue();
            assertThat(covered.detail()).endsWith("1 FAILED").doesNotContain("told");
            assertThat(missing.passed()).isFalse();
        }
    }

    @Nested
    class NothingWithoutAdmission {

        @Test
        void shouldPassWhenEveryWalletBelongsToAnAdmittedMember() {
            assertThat(Invariants.nothingWithoutAdmission(Set.of("a", "b"), List.of("a"), Set.of("b"), Set.of())
                            .passed())
                    .isTrue();
        }

        @Test
        void shouldFailAndNameAWalletOfAMemberNeverAdmitted() {
            Check check = Invariants.nothingWithoutAdmission(Set.of("a"), List.of("a", "z"), Set.of(), Set.of());

            assertThat(check.passed()).isFalse();
            assertThat(check.detail()).contains("1 wallet rows of members never admitted (z)");
        }

        @Test
        void shouldFailOnAFailureOfAMemberNeverAdmitted() {
            assertThat(Invariants.nothingWithoutAdmission(Set.of("a"), List.of("a"), Set.of("z"), Set.of())
                            .passed())
                    .isFalse();
        }

        @Test
        void shouldCountApartWalletsOfMembersWhoseAnswerWasLost() {
            Check check = Invariants.nothingWithoutAdmission(Set.of("a"), List.of("a", "u"), Set.of(), Set.of("u"));

            assertThat(check.passed()).isTrue();
            assertThat(check.detail()).contains("1 wallet rows of members whose request got no answer");
        }
    }

    @Nested
    class IssuanceFollowsAdmission {

        @Test
        void shouldPassWithinOneBatch() {
            assertThat(Invariants.issuanceFollowsAdmission(new long[] {2, 1, 4, 3}, 1000)
                            .passed())
                    .isTrue();
        }

        @Test
        void shouldFailBeyondOneBatch() {
            Check check = Invariants.issuanceFollowsAdmission(new long[] {1_500, 1, 2}, 1000);

            assertThat(check.passed()).isFalse();
            assertThat(check.detail()).contains("2 of 3 wallet rows", "largest lag 1,499");
        }
    }
}
