package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class OrderInversionsTest {

    @Test
    void shouldFindNothingWhenIssuedInAdmissionOrder() {
        assertThat(OrderInversions.count(new long[] {1, 2, 3, 4, 5}, 0)).isEqualTo(new OrderInversions(5, 0, 0));
    }

    @Test
    void shouldTolerateReorderingWithinTheBound() {
        // two drain batches of 3 written interleaved: lag at most 2
        long[] seqs = {4, 1, 5, 2, 6, 3};

        assertThat(OrderInversions.count(seqs, 3)).isEqualTo(new OrderInversions(6, 0, 3));
        assertThat(OrderInversions.count(seqs, 2)).isEqualTo(new OrderInversions(6, 3, 3));
    }

    @Test
    void shouldCountEachRowIssuedTooLateOnce() {
        // 1 and 2 come after 100: each is one row issued far too late, whatever follows
        long[] seqs = {3, 100, 1, 2, 101, 102};

        OrderInversions inversions = OrderInversions.count(seqs, 10);

        assertThat(inversions.beyondBound()).isEqualTo(2);
        assertThat(inversions.maxLag()).isEqualTo(99);
    }

    @Test
    void shouldMeasureAgainstTheHighestSequenceSeenBefore() {
        // 50 comes after 45, but lags 90 behind 140, issued before both
        long[] seqs = {140, 45, 50};

        assertThat(OrderInversions.count(seqs, 85)).isEqualTo(new OrderInversions(3, 2, 95));
    }

    @Test
    void shouldHandleNoRows() {
        assertThat(OrderInversions.count(new long[0], 1000)).isEqualTo(new OrderInversions(0, 0, 0));
    }
}
