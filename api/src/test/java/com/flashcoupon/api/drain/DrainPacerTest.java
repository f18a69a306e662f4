package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;

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
    void shouldNotBurstWhenResumingAfterAPause() {
        var pacer = new DrainPacer(TICK);
        pacer.spend(1, pacer.available(1, 500, 10_000, 0));

        assertThat(pacer.available(1, 500, 10_000, 60 * SECOND)).isEqualTo(100);
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
