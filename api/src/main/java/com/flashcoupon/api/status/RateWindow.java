package com.flashcoupon.api.status;

import java.util.ArrayDeque;
import java.util.List;

/**
 * How fast a coupon's {@code done} counter moves over its latest busy drain ticks ({@link IssuePace}): the
 * least-squares slope over the last {@link IssuePace#WINDOW_NANOS}, and how far the window's two halves disagree. What
 * counts as busy is the caller's: the rate governor's clearing rate and the estimate's rate are measured over
 * different ticks. Not thread-safe: its {@code CouponPace} holds the lock.
 */
final class RateWindow {

    private final ArrayDeque<long[]> window = new ArrayDeque<>(); // {nanos, done} of busy ticks
    private long firstBusyDone = -1; // done when the busy spell began, until its first outcome
    private double measured = -1; // -1: never measured
    private double deviation;
    private long measuredAtNanos;

    /** One drain tick: {@code busy} says whether members waited for what this window measures. */
    void tick(boolean busy, long done, long now) {
        if (!window.isEmpty() && done < window.peekLast()[1]) {
            window.clear(); // the counters started again (the event's state was rebuilt)
            firstBusyDone = -1;
        }
        if (!busy) {
            window.clear();
            firstBusyDone = -1;
            return;
        }
        if (window.isEmpty() && (firstBusyDone < 0 || done == firstBusyDone)) {
            // the window starts at the first outcome of a busy spell: before it, the pipeline's start-up (the
            // worker's first poll) would count as a slow rate
            firstBusyDone = done;
            return;
        }
        window.addLast(new long[] {now, done});
        while (now - window.peekFirst()[0] > IssuePace.WINDOW_NANOS) {
            window.removeFirst();
        }
        if (now - window.peekFirst()[0] >= IssuePace.MIN_WINDOW_NANOS && steps() >= IssuePace.MIN_STEPS) {
            measure(now);
        }
    }

    /** Whether a rate was measured within {@link IssuePace#STALE_NANOS}. */
    boolean fresh(long now) {
        return measured >= 0 && now - measuredAtNanos < IssuePace.STALE_NANOS;
    }

    /** The rate measured last, per second; 0 when not fresh. */
    double rate(long now) {
        return fresh(now) ? measured : 0;
    }

    /** How far the window's older and newer halves disagreed on the rate, per second. */
    double deviation() {
        return deviation;
    }

    /** How many times done moved within the window. */
    private int steps() {
        int steps = 0;
        long last = -1;
        for (long[] sample : window) {
            if (last >= 0 && sample[1] != last) {
                steps++;
            }
            last = sample[1];
        }
        return steps;
    }

    private void measure(long now) {
        List<long[]> samples = List.copyOf(window);
        measured = Math.max(0, slope(samples, 0, samples.size()));
        int half = samples.size() / 2;
        deviation = half >= 2 ? Math.abs(slope(samples, 0, half + 1) - slope(samples, half, samples.size())) / 2 : 0;
        measuredAtNanos = now;
    }

    /** Least-squares slope of done over time, per second, of {@code samples[from, to)}. */
    private static double slope(List<long[]> samples, int from, int to) {
        long t0 = samples.get(from)[0];
        double n = to - from;
        double sumT = 0;
        double sumD = 0;
        for (int i = from; i < to; i++) {
            sumT += (samples.get(i)[0] - t0) / 1e9;
            sumD += samples.get(i)[1];
        }
        double meanT = sumT / n;
        double meanD = sumD / n;
        double num = 0;
        double den = 0;
        for (int i = from; i < to; i++) {
            double t = (samples.get(i)[0] - t0) / 1e9 - meanT;
            num += t * (samples.get(i)[1] - meanD);
            den += t * t;
        }
        return den > 0 ? num / den : 0;
    }
}
