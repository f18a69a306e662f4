package com.flashcoupon.loadgen.crowd;

/**
 * How far issuance strayed from admission order (docs/architecture.md invariant 5): walks the wallet rows in id order and counts
 * the rows whose request sequence is smaller, by more than {@code bound}, than that of some row issued before them.
 *
 * @param rows wallet rows looked at
 * @param beyondBound rows issued after a row admitted more than {@code bound} later than themselves
 * @param maxLag the largest such difference seen (0 when issuance followed admission order exactly)
 */
record OrderInversions(int rows, int beyondBound, long maxLag) {

    static OrderInversions count(long[] requestSeqsInWalletIdOrder, long bound) {
        int beyond = 0;
        long maxLag = 0;
        long highest = Long.MIN_VALUE;
        for (long seq : requestSeqsInWalletIdOrder) {
            if (highest > seq) {
                long lag = highest - seq;
                maxLag = Math.max(maxLag, lag);
                if (lag > bound) {
                    beyond++;
                }
            }
            highest = Math.max(highest, seq);
        }
        return new OrderInversions(requestSeqsInWalletIdOrder.length, beyond, maxLag);
    }
}
