package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CrowdPlanTest {

    private static Map<Integer, Integer> requestsPerMember(CrowdPlan plan) {
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < plan.size(); i++) {
            counts.merge(plan.memberAt(i), 1, Integer::sum);
        }
        return counts;
    }

    @Test
    void shouldAskOnceForEveryMemberAndTwiceForRoundedFraction() {
        CrowdPlan plan = CrowdPlan.shuffled(20_000, 0.333, new Random(1));

        Map<Integer, Integer> counts = requestsPerMember(plan);
        assertThat(counts).hasSize(20_000);
        assertThat(counts.keySet()).allMatch(m -> m >= 0 && m < 20_000);
        assertThat(counts.values()).allMatch(n -> n == 1 || n == 2);
        assertThat(counts.values().stream().filter(n -> n == 2).count()).isEqualTo(6_660);
        assertThat(plan.askingTwice()).isEqualTo(6_660);
        assertThat(plan.size()).isEqualTo(26_660);
    }

    @Test
    void shouldRoundTheNumberAskingTwiceToTheNearest() {
        assertThat(CrowdPlan.shuffled(10, 0.35, new Random(1)).askingTwice()).isEqualTo(4);
        assertThat(CrowdPlan.shuffled(10, 0.34, new Random(1)).askingTwice()).isEqualTo(3);
        assertThat(CrowdPlan.shuffled(3, 0.333, new Random(1)).askingTwice()).isEqualTo(1);
    }

    @Test
    void shouldShuffleSecondRequestsAmongFirstOnes() {
        CrowdPlan plan = CrowdPlan.shuffled(1_000, 0.5, new Random(7));

        int[] order = IntStream.range(0, plan.size()).map(plan::memberAt).toArray();
        int[] sorted = order.clone();
        java.util.Arrays.sort(sorted);
        assertThat(order).isNotEqualTo(sorted);
        // both halves of the run hold first and second requests: duplicates are not all at the end
        long repeatsInFirstHalf = IntStream.range(0, plan.size() / 2)
                .filter(i -> IntStream.range(0, i).anyMatch(j -> order[j] == order[i]))
                .count();
        assertThat(repeatsInFirstHalf).isBetween(50L, 250L);
    }

    @Test
    void shouldGiveTheSameOrderForTheSameSeed() {
        CrowdPlan a = CrowdPlan.shuffled(500, 0.333, new Random(42));
        CrowdPlan b = CrowdPlan.shuffled(500, 0.333, new Random(42));

        assertThat(IntStream.range(0, a.size()).map(a::memberAt).toArray())
                .isEqualTo(IntStream.range(0, b.size()).map(b::memberAt).toArray());
    }

    @Test
    void shouldHandleNobodyAndEverybodyAskingTwice() {
        assertThat(requestsPerMember(CrowdPlan.shuffled(100, 0, new Random(1))).values())
                .hasSize(100)
                .containsOnly(1);
        assertThat(requestsPerMember(CrowdPlan.shuffled(100, 1, new Random(1))).values())
                .hasSize(100)
                .containsOnly(2);
    }

    @Test
    void shouldRefuseImpossiblePlans() {
        assertThatThrownBy(() -> CrowdPlan.shuffled(0, 0.3, new Random())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> CrowdPlan.shuffled(10, 1.5, new Random()))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
