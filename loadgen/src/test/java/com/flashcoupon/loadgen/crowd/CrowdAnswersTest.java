package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class CrowdAnswersTest {

    private final CrowdPlan plan = CrowdPlan.shuffled(3, 0, new Random(1));
    private final CrowdAnswers answers =
            new CrowdAnswers(plan, JsonMapper.builder().build());

    private int indexOf(int member) {
        for (int i = 0; i < plan.size(); i++) {
            if (plan.memberAt(i) == member) {
                return i;
            }
        }
        throw new AssertionError(member);
    }

    private static String problem(String code) {
        return "{\"type\":\"about:blank\",\"title\":\"Conflict\",\"status\":409,\"detail\":\"x\",\"code\":\"" + code
                + "\"}";
    }

    @Test
    void shouldRememberTheAcceptedMemberAndPosition() {
        String label = answers.classify(
                indexOf(1),
                202,
                "{\"couponId\":42,\"memberId\":\"m\",\"status\":\"WAITING\",\"position\":17,"
                        + "\"estimatedWaitSeconds\":1,\"walletCouponId\":null}");

        assertThat(label).isEqualTo("202");
        assertThat(answers.holdsPlace(1)).isTrue();
        assertThat(answers.acceptedCount(1)).isEqualTo(1);
        assertThat(answers.position(1)).isEqualTo(17);
        assertThat(answers.firstAccepted()).isNotNull();
        assertThat(answers.holdsPlace(0)).isFalse();
    }

    @Test
    void shouldCountA200AsHoldingAPlace() {
        assertThat(answers.classify(indexOf(2), 200, "{\"position\":null}")).isEqualTo("200");
        assertThat(answers.holdsPlace(2)).isTrue();
        assertThat(answers.acceptedCount(2)).isZero();
    }

    @Test
    void shouldTellSoldOutFromNotOpenByTheProblemCode() {
        assertThat(answers.classify(0, 409, problem("SOLD_OUT"))).isEqualTo("409 SOLD_OUT");
        assertThat(answers.classify(0, 409, problem("NOT_OPEN"))).isEqualTo("409 NOT_OPEN");
        assertThat(answers.classify(0, 409, problem("ALREADY_USED"))).isEqualTo("409 ALREADY_USED");
        assertThat(answers.classify(0, 409, "not json")).isEqualTo("409");
        assertThat(answers.holdsPlace(plan.memberAt(0))).isFalse();
    }

    @Test
    void shouldLabelOtherStatusesAndKeepTheFirstUnexpectedBody() {
        assertThat(answers.classify(0, 429, "")).isEqualTo("429");
        assertThat(answers.classify(0, 503, "")).isEqualTo("503");
        assertThat(answers.classify(0, 401, "{\"code\":\"UNAUTHORIZED\"}")).isEqualTo("HTTP 401");
        assertThat(answers.classify(0, 500, "boom")).isEqualTo("HTTP 500");
        assertThat(answers.firstUnexpected()).isEqualTo("401 {\"code\":\"UNAUTHORIZED\"}");
    }

    @Test
    void shouldRememberMembersWithoutAnAnswer() {
        answers.failed(indexOf(0), new IOException("reset"));

        assertThat(answers.unanswered(0)).isTrue();
        assertThat(answers.unanswered(1)).isFalse();
    }

    @Test
    void shouldKeepAMemberAnswered503AsOneToAskAgainUntilTheyHearTheirPlace() {
        answers.classify(indexOf(2), 503, "{\"code\":\"UNAVAILABLE\"}");
        assertThat(answers.toldUnavailable(2)).isTrue();
        assertThat(answers.holdsPlace(2)).isFalse();

        // asked again: "asked before", so the first request had been admitted after all
        assertThat(answers.classifyMember(2, 200, "{}")).isEqualTo("200");

        assertThat(answers.toldUnavailable(2)).isFalse();
        assertThat(answers.holdsPlace(2)).isTrue();
    }
}
