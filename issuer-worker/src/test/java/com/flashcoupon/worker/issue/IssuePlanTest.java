package com.flashcoupon.worker.issue;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.IssueRequested;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class IssuePlanTest {

    private static IssueRequested request(long couponId, String member, long sequence) {
        return new IssueRequested(couponId, member, sequence, 0);
    }

    private static List<String> members(List<IssueRequested> requests) {
        return requests.stream().map(IssueRequested::memberId).toList();
    }

    @Nested
    class Grouping {

        @Test
        void shouldOrderEachCouponBySequenceWhenRecordsArriveShuffled() {
            var groups = IssuePlan.byCoupon(List.of(
                    request(2, "b", 2),
                    request(1, "z", 3),
                    request(2, "a", 1),
                    request(1, "y", 1),
                    request(1, "x", 2)));

            assertThat(groups.keySet()).containsExactly(1L, 2L);
            assertThat(members(groups.get(1L))).containsExactly("y", "x", "z");
            assertThat(members(groups.get(2L))).containsExactly("a", "b");
        }

        @Test
        void shouldKeepEarliestRequestWhenMemberRepeatsInOneBatch() {
            var groups = IssuePlan.byCoupon(List.of(request(1, "m", 5), request(1, "m", 2), request(1, "n", 3)));

            assertThat(groups.get(1L)).containsExactly(request(1, "m", 2), request(1, "n", 3));
        }
    }

    @Nested
    class Stock {

        @Test
        void shouldIssueEveryoneWhenStockCoversTheBatch() {
            var plan = IssuePlan.of(List.of(request(1, "a", 1), request(1, "b", 2)), Set.of(), 5);

            assertThat(members(plan.toIssue())).containsExactly("a", "b");
            assertThat(plan.soldOut()).isEmpty();
        }

        @Test
        void shouldIssueTheEarliestAndFailTheRestWhenStockIsShort() {
            var plan = IssuePlan.of(
                    List.of(request(1, "a", 1), request(1, "b", 2), request(1, "c", 3), request(1, "d", 4)),
                    Set.of(),
                    2);

            assertThat(members(plan.toIssue())).containsExactly("a", "b");
            assertThat(members(plan.soldOut())).containsExactly("c", "d");
        }

        @Test
        void shouldFailEveryoneWhenNoStockIsLeft() {
            var plan = IssuePlan.of(List.of(request(1, "a", 1)), Set.of(), 0);

            assertThat(plan.toIssue()).isEmpty();
            assertThat(members(plan.soldOut())).containsExactly("a");
        }
    }

    @Nested
    class Replay {

        @Test
        void shouldSkipDecidedMembersWhenBatchIsReplayed() {
            var plan = IssuePlan.of(
                    List.of(request(1, "a", 1), request(1, "b", 2), request(1, "c", 3)), Set.of("a", "b"), 1);

            assertThat(members(plan.toIssue())).containsExactly("c");
            assertThat(plan.soldOut()).isEmpty();
        }

        @Test
        void shouldNotCountDecidedMembersAgainstStockWhenReplayedAfterSellOut() {
            var plan = IssuePlan.of(List.of(request(1, "a", 1), request(1, "b", 2)), Set.of("a", "b"), 0);

            assertThat(plan.toIssue()).isEmpty();
            assertThat(plan.soldOut()).isEmpty();
        }
    }
}
