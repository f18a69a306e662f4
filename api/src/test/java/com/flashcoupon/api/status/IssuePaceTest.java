package com.flashcoupon.api.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class IssuePaceTest {

    private static final long MS = 1_000_000L;

    /** What {@link #slowCrowd} leaves published and done at its last tick. */
    private static final long SLOW_PUBLISHED = 11 * 20L;

    private static final long SLOW_DONE = (11 - 4) * 20L;

    private long clock;
    private final IssuePace pace = new IssuePace(() -> clock);

    @Test
    void shouldAssumeTheConfiguredRateBeforeAnythingIsMeasured() {
        IssueStatus status = pace.waiting(1, "m", 101, 1, 20);

        assertThat(status.estimatedWaitSeconds()).isEqualTo(5);
        assertThat(status.assumedRatePerSecond()).isEqualTo(20.0);
        assertThat(status.estimatedWaitRange()).isEqualTo(new IssueStatus.WaitRange(5, 10));
    }

    @Test
    void shouldRoundTheWaitToTheNearestSecondAndGiveItInMillisecondsToo() {
        assertThat(pace.waiting(1, "m", 25, 0, 10).estimatedWaitSeconds()).isEqualTo(3); // 2.5 s
        assertThat(pace.waiting(1, "m", 24, 0, 10).estimatedWaitSeconds()).isEqualTo(2); // 2.4 s
        assertThat(pace.waiting(1, "m", 24, 0, 10).estimatedWaitMillis()).isEqualTo(2_400);
        assertThat(pace.waiting(1, "m", 1, 0, 100).estimatedWaitSeconds())
                .as("never 0 while waiting")
                .isEqualTo(1);
        assertThat(pace.waiting(1, "m", 1, 0, 100).estimatedWaitMillis()).isEqualTo(10);
    }

    @Test
    void shouldAssumeTheEffectiveRateWhileThePipelineKeepsUp() {
        // 20/s configured, the drainer cut it to 10/s; issuance follows at 10/s with little in flight
        feed(0, 10, 10, 20, 10);

        IssueStatus status = pace.waiting(1, "m", 1_000 + 100, 1_000, 20);

        assertThat(status.assumedRatePerSecond()).isEqualTo(10.0);
        assertThat(status.estimatedWaitSeconds()).isEqualTo(10);
    }

    @Test
    void shouldAssumeTheMeasuredRateWhenTheWorkerFallsBehind() {
        // the drainer publishes at 20/s, the worker confirms only 5/s: the backlog in flight grows
        feed(0, 5, 20, 20, 20);

        IssuePace.Pace assumed = pace.pace(1, 20);
        assertThat(assumed.measured()).isTrue();
        assertThat(assumed.assumed()).isCloseTo(5, within(0.5));
        // 150 done and 600 published after 30 s: 50 ahead of this one, in flight, at 5/s
        assertThat(pace.waiting(1, "m", 150 + 50, 150, 20).estimatedWaitSeconds())
                .isBetween(9L, 11L);
    }

    @Test
    void shouldMeasureASteadyRateFromAWorkerThatConfirmsInBursts() {
        // 100/s published; the worker confirms 50 at once every second: 50/s, in steps
        long now = 0;
        for (int tick = 0; tick <= 100; tick++, now += 200 * MS) {
            long done = (tick / 5) * 50L;
            pace.observe(1, done, tick * 20L, 100_000, 100, 100, "", now);
            clock = now;
            if (tick >= 25) {
                assertThat(pace.pace(1, 100).assumed())
                        .as("the rate assumed at tick %d", tick)
                        .isBetween(45.0, 55.0);
            }
        }
    }

    @Test
    void shouldAssumeTheMeasuredRateWhileTheDrainersRateIsCutForTheDatabase() {
        // the governor raised the cut rate back to 90/s; the worker still confirms 45/s, with little in flight
        long now = 0;
        for (int tick = 0; tick <= 50; tick++, now += 200 * MS) {
            pace.observe(1, tick * 9L, tick * 9L + 20, 100_000, 100, 90, "CONSUMER_LAG: ...", now);
            clock = now;
        }

        assertThat(pace.pace(1, 100).assumed()).isCloseTo(45, within(1.0));
    }

    @Test
    void shouldAssumeWhatIsReallyIssuedWhenTheDrainerItselfFallsShortOfItsRate() {
        // 100/s configured and effective, nothing cut, nothing piling up in flight: 53/s come out all the same
        feed(0, 53, 53, 100, 100);

        assertThat(pace.pace(1, 100).assumed()).isCloseTo(53, within(1.5));
    }

    @Test
    void shouldAssumeTheOperatorsNewRateAtOnceWhenItIsLowerThanWhatWasMeasured() {
        feed(0, 100, 100, 100, 100);
        pace.observe(1, 3_000, 3_000, 100_000, 50, 50, "", clock + 200 * MS); // the operator halved the rate

        assertThat(pace.pace(1, 50).assumed()).isEqualTo(50);
    }

    @Test
    void shouldNotTakeAnIdleCouponForASlowOne() {
        long now = 0;
        for (int tick = 0; tick < 50; tick++, now += 200 * MS) {
            pace.observe(1, 100, 100, 100, 20, 20, "", now); // everything done, nothing waits
            clock = now;
        }

        assertThat(pace.pace(1, 20).assumed()).isEqualTo(20);
    }

    @Test
    void shouldScoreTheEstimatesGivenAtAdmissionWhenTheMembersTurnComes() {
        long now = 0;
        pace.observe(1, 0, 0, 0, 10, 10, "", now);
        pace.estimated(1, 40, 5_000L, now); // told 5 s, issued after 4 s: error 0.25
        pace.estimated(1, 30, 3_000L, now); // told 3 s, issued after 3 s: error 0
        for (int tick = 1; tick <= 25; tick++) {
            now += 200 * MS;
            long done = tick * 2L; // 10/s
            pace.observe(1, done, done, 50, 10, 10, "", now);
            clock = now;
        }

        IssuePace.Snapshot snapshot = pace.snapshot(1);
        assertThat(snapshot.errorSamples()).isEqualTo(2);
        assertThat(snapshot.errorP50()).isCloseTo(0.0, within(0.01));
        assertThat(snapshot.errorP90()).isCloseTo(0.25, within(0.01));
    }

    @Test
    void shouldCountThePipelinesTransitWhenACrowdSlowerThanTheRateKeepsFewAhead() {
        // 100 admitted per second at 2,000/s: what a tick sees published went out in the drain after the tick before,
        // and its outcome comes 1 s after that. A member has 81 ahead (in flight) and, counted at the rate alone,
        // would be told 40 ms
        clock = slowCrowd();
        long published = SLOW_PUBLISHED;
        long done = SLOW_DONE;

        IssuePace.Pace assumed = pace.pace(1, 2_000);
        assertThat(assumed.measured())
                .as("nothing waits to be published: the crowd's pace is not the pipeline's")
                .isFalse();
        assertThat(assumed.transitMillis()).isEqualTo(1_000);
        IssueStatus admitted = pace.waiting(1, "m", published + 1, done, 2_000);
        assertThat(admitted.estimatedWaitMillis())
                .as("published in the next drain, then 1 s")
                .isEqualTo(1_001);
        IssueStatus inFlight = pace.waiting(1, "m", done + 60, done, 2_000);
        assertThat(inFlight.estimatedWaitMillis())
                .as("60 of the 80 in flight ahead: three quarters of the transit left")
                .isEqualTo(750);
        assertThat(pace.waiting(1, "m", published + 4_001, done, 2_000).estimatedWaitMillis())
                .as("4,000 to publish ahead at 2,000/s, then the transit")
                .isEqualTo(3_001);
        assertThat(pace.waiting(1, "m", published + 4_001, done, 2_000).estimatedWaitRange())
                .as("the range's slow end at half the rate, with the same transit")
                .isEqualTo(new IssueStatus.WaitRange(3, 5));
    }

    @Test
    void shouldCountWhatTheDrainerPublishedAfterTheTickAsOut() {
        clock = slowCrowd();
        long published = SLOW_PUBLISHED;
        long done = SLOW_DONE;
        // the tick saw 220 published; its drain then sends the next 20: a member right after them waits for the next
        // drain only once those are counted out
        assertThat(pace.waiting(1, "m", published + 21, done, 2_000).estimatedWaitMillis())
                .as("the 20 sent after the tick still counted as to go")
                .isEqualTo(1_011);
        pace.published(1, published + 20);
        assertThat(pace.waiting(1, "m", published + 21, done, 2_000).estimatedWaitMillis())
                .isEqualTo(1_001);
        assertThat(pace.pace(1, 2_000).published()).isEqualTo(published + 20);

        // the next tick's count stands alone, even a lower one (the counters started again after a Redis loss)
        pace.observe(1, 0, 40, 40, 2_000, 2_000, "", clock + 200 * MS);
        assertThat(pace.pace(1, 2_000).published()).isEqualTo(40);
    }

    @Test
    void shouldNotAddTheTransitWhileABacklogSetsThePace() {
        // 100/s published and issued from a big queue: each tick's batch is issued within the tick
        feed(0, 100, 100, 100, 100);
        IssuePace.Pace assumed = pace.pace(1, 100);
        assertThat(assumed.measured()).isTrue();
        assertThat(assumed.transitMillis()).as("timed, though inside the pace").isPositive();
        long done = 150 * 100 / 5L;
        assertThat(pace.waiting(1, "m", done + 500, done, 100).estimatedWaitMillis())
                .as("500 ahead at 100/s: the transit is in the pace outcomes come at, not after it")
                .isEqualTo(5_000);
    }

    @Test
    void shouldAddTheTransitAgainOnceTheBacklogIsGone() {
        feed(0, 100, 100, 100, 100);
        long done = 150 * 100 / 5L;
        // the queue ran dry: everything admitted is published and issued, while the rate measured still holds
        clock += 200 * MS;
        pace.observe(1, done, done, done, 100, 100, "", clock);
        assertThat(pace.pace(1, 100).measured()).isTrue();
        long transit = pace.pace(1, 100).transitMillis();
        assertThat(transit).isPositive();
        assertThat(pace.waiting(1, "m", done + 10, done, 100).estimatedWaitMillis())
                .as("a member arriving now: published at the next drain, then the transit")
                .isEqualTo(100 + transit);
    }

    @Test
    void shouldNotTakeACrowdSlowerThanTheRateForASlowPipeline() {
        // 100 admitted per second at 500/s: each tick publishes what came in, the outcomes follow 0.4 s later at the
        // crowd's pace; a burst arriving next is issued at 500/s, not at the 100/s the outcomes showed
        long now = 0;
        for (int tick = 1; tick <= 50; tick++) {
            now = tick * 200 * MS;
            long published = tick * 20L;
            pace.observe(1, Math.max(0, published - 20), published, published, 500, 500, "", now);
        }
        clock = now;

        assertThat(pace.pace(1, 500).measured()).isFalse();
        assertThat(pace.pace(1, 500).assumed()).isEqualTo(500);
        assertThat(pace.clearingRate(1))
                .as("the rate governor still sees how fast outcomes come")
                .isCloseTo(100, within(5.0));
        assertThat(pace.waiting(1, "m", 1_000 + 1_000, 980, 500).estimatedWaitMillis())
                .as("1,000 to publish at 500/s, then the transit: 20 in flight at 100/s, and half a tick (the crossings"
                        + " say 400 ms, counted at the ticks)")
                .isEqualTo(2_300);
    }

    @Test
    void shouldMeasureTheRateOfAWorkerFallingBehindWithNothingLeftToPublish() {
        // everything admitted is published at once (20/s), the worker confirms 5/s: the backlog is in flight
        long now = 0;
        for (int tick = 0; tick <= 150; tick++, now += 200 * MS) {
            long out = tick * 4L;
            pace.observe(1, tick, out, out, 20, 20, "", now);
            clock = now;
        }

        assertThat(pace.pace(1, 20).measured()).isTrue();
        assertThat(pace.pace(1, 20).assumed()).isCloseTo(5, within(0.5));
    }

    @Test
    void shouldKeepTheLastTransitForAWhileAndForgetItOnceNothingIsSeen() {
        long now = slowCrowd();
        clock = now;
        assertThat(pace.pace(1, 2_000).transitMillis()).isEqualTo(1_000);
        for (int tick = 12; tick <= 22; tick++) { // all issued, then 2 s with nothing in flight
            now = tick * 200 * MS;
            pace.observe(1, 220, 220, 220, 2_000, 2_000, "", now);
        }
        clock = now;
        assertThat(pace.pace(1, 2_000).transitMillis())
                .as("no crossing for a second: the last median still holds")
                .isPositive();

        clock = now + IssuePace.STALE_NANOS + MS;
        assertThat(pace.pace(1, 2_000).transitMillis())
                .as("no tick seen for longer than the staleness: nothing known")
                .isZero();
        assertThat(pace.waiting(1, "m", 321, 220, 2_000).estimatedWaitMillis()).isEqualTo(51);

        for (int tick = 23; tick <= 60; tick++) { // ticks again, idle for more than the staleness
            now = tick * 200 * MS;
            pace.observe(1, 220, 220, 220, 2_000, 2_000, "", now);
        }
        clock = now;
        assertThat(pace.pace(1, 2_000).transitMillis()).isZero();
    }

    @Test
    void shouldCountTheTimeSinceTheOldestRequestInFlightWasPublishedWhenNothingCameOutOfIt() {
        // an event's first batch, published 1.4 s ago: the worker has issued nothing yet
        pace.observe(1, 0, 300, 300, 2_000, 2_000, "", 0);
        pace.observe(1, 0, 300, 500, 2_000, 2_000, "", 1_400 * MS);
        clock = 1_400 * MS;

        assertThat(pace.pace(1, 2_000).transitMillis()).isEqualTo(1_400);
        assertThat(pace.waiting(1, "m", 500, 0, 2_000).estimatedWaitMillis())
                .as("200 to publish at 2,000/s, then at least the 1.4 s the first batch has taken so far")
                .isEqualTo(1_500);

        clock = 4_000 * MS;
        assertThat(pace.pace(1, 2_000).transitMillis())
                .as("no tick seen since (Kafka or Redis out of this instance's reach): not a longer stall")
                .isEqualTo(1_400);
    }

    @Test
    void shouldNotHoldAHiccupsTransitWhileThePipelineKeepsUpWithinATick() {
        // a batch that took 1.4 s, then every batch issued before the next tick sees it
        pace.observe(1, 0, 100, 5_000, 500, 500, "", 0);
        pace.observe(1, 0, 100, 5_000, 500, 500, "", 1_200 * MS);
        pace.observe(1, 100, 100, 5_000, 500, 500, "", 1_400 * MS);
        long now = 1_400 * MS;
        for (int tick = 1; tick <= 10; tick++) {
            now += 200 * MS;
            long out = 100 + tick * 100L;
            pace.observe(1, out, out, 5_000, 500, 500, "", now);
        }
        clock = now;

        assertThat(pace.pace(1, 500).transitMillis())
                .as("half a tick: issued within the tick that saw them published")
                .isEqualTo(100);
    }

    @Test
    void shouldTakeTheTransitOfWhatIsInFlightNowWhenTheCrossingsTellOfASlowerPast() {
        // a cold worker: the first batches took 2 s; now 100 are in flight and clear at 200/s
        long now = 0;
        for (int tick = 0; tick <= 40; tick++, now += 200 * MS) {
            long done = Math.max(0, (tick - 10) * 40L);
            pace.observe(1, done, Math.max(done + 100, tick * 20L), 100_000, 2_000, 2_000, "", now);
            clock = now;
        }

        assertThat(pace.clearingRate(1)).isCloseTo(200, within(5.0));
        assertThat(pace.pace(1, 2_000).transitMillis())
                .as("100 in flight at 200/s, and half a tick")
                .isEqualTo(600);
    }

    @Test
    void shouldForgetTheTransitWhenTheCountersStartAgain() {
        long now = slowCrowd();
        // Redis lost the event's state and it was rebuilt: done and published start again from what MySQL knows
        pace.observe(1, 10, 10, 10, 2_000, 2_000, "", now + 200 * MS);
        clock = now + 200 * MS;

        assertThat(pace.pace(1, 2_000).transitMillis()).isZero();
    }

    /**
     * 11 ticks of 100 admitted per second at 2,000/s: what a tick sees published went out in the drain after the tick
     * before, and its outcome comes 1 s after that (done is what went out 1 s ago). Returns the last tick's time.
     */
    private long slowCrowd() {
        long now = 0;
        for (int tick = 1; tick <= 11; tick++) {
            now = tick * 200 * MS;
            long published = tick * 20L;
            pace.observe(1, Math.max(0, (tick - 4) * 20L), published, published, 2_000, 2_000, "", now);
        }
        return now;
    }

    /** 30 s of drain ticks: {@code confirmed} outcomes per second, {@code published} per second, a big queue. */
    private void feed(long start, int confirmed, int published, int configured, double effective) {
        long now = start;
        for (int tick = 0; tick <= 150; tick++, now += 200 * MS) {
            long done = tick * confirmed / 5L;
            long out = tick * published / 5L;
            pace.observe(1, done, out, 100_000, configured, effective, "", now);
            clock = now;
        }
    }
}
