package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateGovernorTest {

    private static final long SECOND = 1_000_000_000L;
    private static final RateGovernor.Signals CALM = new RateGovernor.Signals(20, 10);

    private final RateGovernor governor = new RateGovernor(DrainSettings.adaptive());

    @Test
    void shouldKeepTheConfiguredRateWhileTheDatabaseKeepsUp() {
        for (int tick = 1; tick <= 50; tick++) {
            RateGovernor.Decision decision = governor.decide(1, 200, CALM, tick * SECOND / 5);
            assertThat(decision.rate()).isEqualTo(200);
            assertThat(decision.reason()).isEmpty();
        }
    }

    @Test
    void shouldHalveOnSlowWritesOncePerCutIntervalAndSayWhy() {
        var slow = new RateGovernor.Signals(400, 10);

        RateGovernor.Decision first = governor.decide(1, 200, slow, SECOND);
        RateGovernor.Decision soon = governor.decide(1, 200, slow, SECOND + SECOND / 2);
        RateGovernor.Decision later = governor.decide(1, 200, slow, 3 * SECOND);

        assertThat(first.rate()).isEqualTo(100);
        assertThat(first.changed()).isTrue();
        assertThat(first.reason()).startsWith("WRITE_LATENCY").contains("400 ms");
        assertThat(soon.rate()).as("the last cut has not shown yet").isEqualTo(100);
        assertThat(later.rate()).isEqualTo(50);
    }

    @Test
    void shouldCutOnABacklogInFlightMeasuredInSecondsOfTheEffectiveRate() {
        // 700 in flight at 200/s is 3.5 s, over the 3 s bound
        RateGovernor.Decision decision = governor.decide(1, 200, new RateGovernor.Signals(20, 700), SECOND);

        assertThat(decision.rate()).isEqualTo(100);
        assertThat(decision.reason()).startsWith("CONSUMER_LAG");
    }

    @Test
    void shouldMeasureTheBacklogAtTheRateItClearsNotAtACutRate() {
        // a worker that clears 43/s: 110 in flight is 2.6 s of its work. At the effective rate after two cuts (50/s,
        // then 25/s) the same backlog would look like 2.2 s, then 4.4 s, and call for a third cut
        governor.decide(1, 100, new RateGovernor.Signals(400, 10), 0); // 50
        governor.decide(1, 100, new RateGovernor.Signals(400, 10), 3 * SECOND); // 25

        RateGovernor.Decision decision = governor.decide(1, 100, new RateGovernor.Signals(0, 110, 500, 43), 6 * SECOND);

        assertThat(decision.rate()).as("no third cut").isGreaterThanOrEqualTo(25);
        assertThat(governor.decide(1, 100, new RateGovernor.Signals(0, 140, 600, 43), 9 * SECOND)
                        .reason())
                .as("3.3 s at 43/s is over the bound")
                .startsWith("CONSUMER_LAG")
                .contains("43.0 outcomes/s");
    }

    @Test
    void shouldFollowAWorkerSlowerThanTheRateWithoutSwingingAroundIt() {
        // a worker that clears 50/s under a rate of 100/s: the backlog in flight grows by what it cannot take
        double rate = 100;
        double inFlight = 0;
        double lowest = rate;
        double highest = 0;
        for (int tick = 1; tick <= 600; tick++) { // 120 s of ticks 200 ms apart
            inFlight = Math.max(0, inFlight + (rate - 50) / 5);
            rate = governor.decide(1, 100, new RateGovernor.Signals(20, (long) inFlight, tick, 50), tick * SECOND / 5)
                    .rate();
            if (tick > 150) { // after the first 30 s
                lowest = Math.min(lowest, rate);
                highest = Math.max(highest, rate);
            }
        }

        assertThat(lowest)
                .as("a backlog cut keeps 90% of what the worker clears: it never idles")
                .isGreaterThanOrEqualTo(45);
        assertThat(highest)
                .as("raised 20% above it at most, twice before the backlog shows (it swung up to 83/s before)")
                .isLessThanOrEqualTo(66);
    }

    @Test
    void shouldRaiseGeometricallyFromTheClearingRateOnceTheWorkerRecovers() {
        governor.decide(1, 100, new RateGovernor.Signals(400, 10), 0); // 50
        governor.decide(1, 100, new RateGovernor.Signals(400, 10), 2 * SECOND); // 25
        double rate = 25;
        long t = 2 * SECOND;
        int steps = 0;
        while (rate < 100 && steps < 30) {
            t += SECOND;
            // a recovered worker clears whatever the drainer publishes
            rate = governor.decide(1, 100, new RateGovernor.Signals(20, 5, t, rate), t)
                    .rate();
            steps++;
        }

        assertThat(rate).isEqualTo(100);
        assertThat(steps).as("about 8 steps of +20%% after the 2 s to recover").isBetween(8, 12);
    }

    @Test
    void shouldCutWhenNothingGetsAnOutcomeForLongerThanTheBoundWhileRequestsAreInFlight() {
        // the worker's transactions fail and are retried: no latency reported, a small backlog, no progress
        for (long t = 0; t <= 3; t++) {
            assertThat(governor.decide(1, 200, new RateGovernor.Signals(0, 50, 120), t * SECOND)
                            .rate())
                    .isEqualTo(200);
        }
        RateGovernor.Decision stalled = governor.decide(1, 200, new RateGovernor.Signals(0, 50, 120), 4 * SECOND);

        assertThat(stalled.rate()).isEqualTo(100);
        assertThat(stalled.reason()).startsWith("CONSUMER_LAG: no outcome for 4.0 s");
    }

    @Test
    void shouldRaiseStepByStepAfterRecoveryAndNeverAboveTheConfiguredRate() {
        governor.decide(1, 200, new RateGovernor.Signals(400, 0), SECOND);
        governor.decide(1, 200, new RateGovernor.Signals(400, 0), 3 * SECOND); // 50

        assertThat(governor.decide(1, 200, CALM, 4 * SECOND).rate())
                .as("not before the recovery delay")
                .isEqualTo(50);
        double rate = 50;
        for (long t = 5; t <= 40; t++) {
            RateGovernor.Decision decision = governor.decide(1, 200, CALM, t * SECOND);
            assertThat(decision.rate()).isBetween(rate, Math.min(200, rate + 20));
            rate = decision.rate();
        }
        assertThat(rate).isEqualTo(200);
        assertThat(governor.decide(1, 200, CALM, 41 * SECOND).reason()).isEmpty();
    }

    @Test
    void shouldFollowTheOperatorDownAndResumeFromWhatRedisHolds() {
        assertThat(governor.decide(1, 200, CALM, SECOND).rate()).isEqualTo(200);
        assertThat(governor.decide(1, 80, CALM, 2 * SECOND).rate()).isEqualTo(80);

        assertThat(governor.decide(1, 300, CALM, 3 * SECOND).rate())
                .as("raised by the operator with no cut in force: at once")
                .isEqualTo(300);

        governor.resume(2, 30, "WRITE_LATENCY: earlier");
        RateGovernor.Decision resumed = governor.decide(2, 200, CALM, SECOND);
        assertThat(resumed.rate()).isEqualTo(30);
        assertThat(resumed.reason()).isEqualTo("WRITE_LATENCY: earlier");
    }
}
