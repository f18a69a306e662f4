package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class DrainPacerTest {

    private static final long TICK = 200_000_000L;
    private static final long SECOND = 1_000_000_000L;

    @Test
    void shouldAllowOneTickWorthWhenFirstSeen() {
        var pacer = new DrainPacer(TICK);

        assertThat(pacer.available(1, 500, 10_000, 0)).isEqualTo(100);
    }

    @Test
    void shouldPublishTheRateOverOneSecondWhenDrainedEveryTick() {
        var pacer = new DrainPacer(TICK);
        long published = 0;
        for (long now = 0; now < SECOND; now += TICK) {
            long n = pacer.available(1, 500, 10_000, now);
            pacer.spend(1, n);
            published += n;
        }

        assertThat(published).isEqualTo(500);
    }

    @Test
    void shouldKeepTheRateWhenTicksComeLaterThanATickApart() {
        // a fixed delay after each tick's work: 200 ms + 40 ms between ticks
        assertThat(drainedPerSecond(100, TICK + 40_000_000L)).isCloseTo(100, within(1.0));
    }

    @Test
    void shouldNotBurstWhenResumingAfterAPause() {
        var pacer = new DrainPacer(TICK);
        pacer.spend(1, pacer.available(1, 500, 10_000, 0));

        assertThat(pacer.available(1, 500, 10_000, 60 * SECOND))
                .as("one second's worth")
                .isEqualTo(500);
    }

    @Test
    void shouldKeepTheRateWhenEachTurnTakesLongerThanTwoTicks() {
        // Redis fsyncing every write: 200 ms between turns plus 550 ms of work in each
        assertThat(drainedPerSecond(100, TICK + 550_000_000L)).isCloseTo(100, within(2.0));
    }

    /** Records per second a coupon with a deep backlog publishes over a minute of turns {@code turnNanos} apart. */
    private static double drainedPerSecond(double rate, long turnNanos) {
        var pacer = new DrainPacer(TICK);
        long published = 0;
        long now = 0;
        for (; now < 60 * SECOND; now += turnNanos) {
            long n = pacer.available(1, rate, 100_000, now);
            pacer.spend(1, n);
            published += n;
        }
        return (double) published / now * SECOND;
    }

    @Test
    void shouldFollowANewRateAtTheNextTick() {
        var pacer = new DrainPacer(TICK);
        pacer.spend(1, pacer.available(1, 50, 10_000, 0));

        assertThat(pacer.available(1, 5_000, 10_000, TICK)).isEqualTo(1_000);
    }

    @Test
    void shouldStillDrainWhenRateIsBelowOnePerTick() {
        var pacer = new DrainPacer(TICK);
        pacer.spend(1, pacer.available(1, 1, 10, 0));

        assertThat(pacer.available(1, 1, 10, SECOND)).isEqualTo(1);
    }

    @Test
    void shouldNeverOfferMoreThanPending() {
        var pacer = new DrainPacer(TICK);

        assertThat(pacer.available(1, 100_000, 7, 0)).isEqualTo(7);
    }
}
