package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

class WaitEstimatesTest {

    private static final long T0 =
            LocalDateTime.of(2026, 11, 23, 12, 0).toInstant(ZoneOffset.UTC).toEpochMilli();
    private static final String[] MEMBERS = {"a", "b", "c"};

    private final WaitEstimates estimates =
            new WaitEstimates(JsonMapper.builder().build());

    private static String waiting(long seconds) {
        return "{\"status\":\"WAITING\",\"position\":3,\"estimatedWaitSeconds\":" + seconds + "}";
    }

    private static LocalDateTime at(long millisAfterT0) {
        return LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC).plusNanos((T0 + millisAfterT0) * 1_000_000);
    }

    @Test
    void shouldScoreEachEstimateAgainstTheWalletAndLeaveOutShortWaitsAndFinalStatuses() {
        assertThat(estimates.told(0, waiting(10), true, T0)).isTrue(); // issued after 8 s: 25% off
        assertThat(estimates.told(1, waiting(4), false, T0)).isTrue(); // issued after 4 s: exact
        estimates.told(2, waiting(1), false, T0); // issued after 0.5 s: left out
        assertThat(estimates.told(1, "{\"status\":\"ISSUED\",\"walletCouponId\":7}", false, T0))
                .isFalse();

        List<String> report = estimates.report(Map.of("a", at(8_000), "b", at(4_000), "c", at(500)), MEMBERS, 0);

        assertThat(report.getFirst())
                .isEqualTo("wait estimates vs wallet issued_at (waits of 1 s or more, from the api's answer): at"
                        + " admission p50 25.0%, p90 25.0% (1 estimates); at status reads p50 0.0%, p90 0.0% (1"
                        + " estimates)");
        assertThat(report)
                .contains("estimates scored: 2 of 3 told; left out 1 of waits under 1 s and 0 of members without a"
                        + " wallet");
    }

    @Test
    void shouldCountTheWaitFromTheApiAnswerWhichLiesBetweenTheSendingAndTheArrival() {
        // the 202 took 2 s to arrive: the api made its estimate somewhere in those 2 s, so the wait it estimated was
        // between 4 s (from the arrival) and 6 s (from the sending) for a wallet written 6 s after the sending
        estimates.told(0, waiting(5), true, T0, T0 + 2_000); // within: exact as far as the loadgen can tell
        estimates.told(1, waiting(9), true, T0, T0 + 2_000); // 3 s beyond the longest it can have been: 50%
        estimates.told(2, waiting(3), true, T0, T0 + 2_000); // 1 s short of the shortest: 25%

        List<String> report = estimates.report(Map.of("a", at(6_000), "b", at(6_000), "c", at(6_000)), MEMBERS, 0);

        assertThat(report.getFirst())
                .isEqualTo("wait estimates vs wallet issued_at (waits of 1 s or more, from the api's answer): at"
                        + " admission p50 25.0%, p90 50.0% (3 estimates); at status reads none");
    }

    @Test
    void shouldGiveTheErrorAsTheDistanceToTheNearerEndOfTheWaitsPossible() {
        assertThat(WaitEstimates.error(5, 4, 6)).isZero();
        assertThat(WaitEstimates.error(4, 4, 6)).isZero();
        assertThat(WaitEstimates.error(2, 4, 6)).isEqualTo(0.5);
        assertThat(WaitEstimates.error(9, 4, 6)).isEqualTo(0.5);
        assertThat(WaitEstimates.error(5, 4, 4)).isEqualTo(0.25); // the sending time unknown: from the arrival alone
    }

    @Test
    void shouldScoreTheEstimatesToldBeforeTheCouponsFirstWalletApartFromTheLaterOnes() {
        // told before anything was issued: the pipeline stalled and the member waited 10 s, told 1 s
        estimates.told(0, waiting(1), true, T0 - 1_000);
        // told once the first wallet was written (T0 + 9 s), issued 2 s later and told 2 s: exact
        estimates.told(1, waiting(2), true, T0 + 9_500);
        estimates.told(2, waiting(2), false, T0 + 9_500);

        List<String> report = estimates.report(Map.of("a", at(9_000), "b", at(11_500), "c", at(11_500)), MEMBERS, 0);

        assertThat(report.getFirst())
                .isEqualTo("wait estimates vs wallet issued_at (waits of 1 s or more, from the api's answer): at"
                        + " admission p50 0.0%, p90 90.0% (2 estimates); at status reads p50 0.0%, p90 0.0% (1"
                        + " estimates)");
        assertThat(report.get(1))
                .isEqualTo("of them, told before the coupon's first wallet (nothing issued yet, nothing measured): at"
                        + " admission p50 90.0%, p90 90.0% (1 estimates); at status reads none; told after it: at"
                        + " admission p50 0.0%, p90 0.0% (1 estimates); at status reads p50 0.0%, p90 0.0% (1"
                        + " estimates)");
    }

    @Test
    void shouldSplitTheReadsAfterARateChangeIntoTheFirstFiveSecondsAndLater() {
        estimates.told(0, waiting(10), false, T0 + 1_000); // 1 s after the change, issued 5 s later: 100% off
        estimates.told(1, waiting(3), false, T0 + 6_000); // 6 s after, issued 3 s later: exact

        List<String> report = estimates.report(Map.of("a", at(6_000), "b", at(9_000)), MEMBERS, T0);

        assertThat(report.getLast())
                .isEqualTo("after the rate change, status reads: within 5 s p50 100.0%, p90 100.0% (1 estimates);"
                        + " later p50 0.0%, p90 0.0% (1 estimates)");
    }

    @Test
    void shouldScoreThePreciseEstimateOnALineOfItsOwnWhenTheApiGivesIt() {
        estimates.told(
                0,
                "{\"status\":\"WAITING\",\"position\":3,\"estimatedWaitSeconds\":2,\"estimatedWaitMillis\":1500}",
                false,
                T0); // issued after 1.5 s: whole seconds 33.3% off, precise exact

        List<String> report = estimates.report(Map.of("a", at(1_500)), MEMBERS, 0);

        assertThat(report)
                .startsWith(
                        "wait estimates vs wallet issued_at (waits of 1 s or more, from the api's answer): at admission"
                                + " none; at status reads p50 33.3%, p90 33.3% (1 estimates)",
                        "precise wait estimates (estimatedWaitMillis): at admission none; at status reads p50 0.0%,"
                                + " p90 0.0% (1 estimates)");
    }

    @Test
    void shouldSayWhetherTheGoalWasMetAndWhyNotWhenTheMissedOnesWereToldBeforeAnythingWasIssued() {
        // 100 admissions told 1 s before the first wallet, each waiting 10 s: 90% off; 100 reads later, exact
        String[] members = new String[201];
        Map<String, LocalDateTime> issued = new java.util.HashMap<>();
        for (int m = 0; m < 100; m++) {
            members[m] = "early" + m;
            estimates.told(m, waiting(1), true, T0 - 1_000);
            issued.put(members[m], at(9_000));
            members[100 + m] = "read" + m;
            estimates.told(100 + m, waiting(2), false, T0 + 9_500);
            issued.put(members[100 + m], at(11_500));
        }
        members[200] = "quick"; // issued within 1 s: not scored
        estimates.told(200, waiting(1), true, T0 + 9_500);
        issued.put("quick", at(10_000));

        List<String> report = estimates.report(issued, members, 0);

        assertThat(report)
                .contains("the goal, p90 at most 10%: at admission missed (p90 90.0%); at status reads met (p90 0.0%)."
                        + " 100 of the 100 admissions scored were told before the coupon's first wallet, while the"
                        + " pipeline had issued nothing yet (a fresh stack's first outcomes take seconds): an estimate"
                        + " made then cannot foresee that start; the later ones: none");
    }

    @Test
    void shouldNotJudgeAHandfulOfEstimatesAndSayWhenMostWaitsWereTooShortToScore() {
        estimates.told(0, waiting(4), true, T0); // issued after 4 s: exact
        estimates.told(1, waiting(1), true, T0); // issued within 1 s
        estimates.told(2, waiting(1), true, T0); // issued within 1 s

        List<String> report = estimates.report(Map.of("a", at(4_000), "b", at(300), "c", at(300)), MEMBERS, 0);

        assertThat(report)
                .contains("the goal, p90 at most 10%: at admission too few to judge (1 estimates, p90 0.0%); at status"
                        + " reads not measured. 2 of the 3 waits were under 1 s (issuance kept up with the crowd), so"
                        + " the scored ones, if any, are the exceptions");
    }

    @Test
    void shouldGiveTheMedianAndTheNinetiethPercentile() {
        var errors = WaitEstimates.errors(List.of(0.5, 0.1, 0.3, 0.2, 0.4, 0.0, 0.6, 0.7, 0.8, 0.9));

        assertThat(errors.p50()).isEqualTo(0.4);
        assertThat(errors.p90()).isEqualTo(0.8);
    }
}
