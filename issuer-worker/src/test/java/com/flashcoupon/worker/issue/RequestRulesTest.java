package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.IssueRequested;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestRulesTest {

    @Nested
    class Problem {

        @Test
        void shouldAcceptWhenFieldsAreValid() {
            assertThat(RequestRules.problem(new IssueRequested(1, "m-1.a:b_C", 1, 0)))
                    .isEmpty();
        }

        @Test
        void shouldRefuseWhenSequenceIsBelowOne() {
            assertThat(RequestRules.problem(new IssueRequested(1, "m-1", 0, 0)))
                    .hasValueSatisfying(problem -> assertThat(problem).contains("sequence"));
        }

        @Test
        void shouldRefuseWhenCouponIdIsBelowOne() {
            assertThat(RequestRules.problem(new IssueRequested(0, "m-1", 1, 0)))
                    .hasValueSatisfying(problem -> assertThat(problem).contains("couponId"));
        }

        @ParameterizedTest
        @NullSource
        @ValueSource(
                strings = {
                    "",
                    " ",
                    "m 1",
                    "m/1",
                    "ü",
                    "x123456789x123456789x123456789x123456789x123456789x123456789x12345"
                })
        void shouldRefuseWhenMemberIdIsNotAnApiSubject(String memberId) {
            assertThat(RequestRules.problem(new IssueRequested(1, memberId, 1, 0)))
                    .hasValueSatisfying(problem -> assertThat(problem).contains("memberId"));
        }
    }

    @Nested
    class Readable {

        @Test
        void shouldBeReadableWhenOnlySequenceIsWrong() {
            assertThat(RequestRules.readable(new IssueRequested(1, "m-1", 0, 0)))
                    .isTrue();
        }

        @Test
        void shouldNotBeReadableWhenMemberIsBlank() {
            assertThat(RequestRules.readable(new IssueRequested(1, " ", 1, 0))).isFalse();
        }
    }
}
