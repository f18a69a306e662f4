package com.flashcoupon.api.status;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.springframework.stereotype.Component;

/**
 * The rate each coupon is really being issued at, as this api instance sees it, and what the waiting estimate assumes
 * from it. The drainer's tick feeds it, on every instance, whether or not this one drains the coupon: the coupon's
 * {@code done} counter (members with an outcome), what was published, the operator's rate and the drainer's effective
 * rate ({@code RateGovernor}).
 *
 * <p>The estimate divides the position by the assumed rate: the rate the coupon is really issued at (the least-squares
 * slope of {@code done} over the last {@link #WINDOW_NANOS 5 seconds} of ticks with members waiting for the pipeline: a
 * backlog to publish, or one in flight), never above the drainer's effective rate while the drainer sets the pace,
 * never above the operator's while the worker or MySQL does;
 * the effective rate until something was measured. A rate is only measured while members wait: an idle coupon is not a
 * slow one. It also measures the pipeline's transit, from a request's publication to its outcome, which the estimate
 * counts when longer than the position's share of the rate ({@link Pace#waitMillis}): a crowd slower than the rate
 * keeps few ahead of anyone, and its members wait the pipeline's own time.
 *
 * <p>It also measures its own error: for a sample of the admissions this instance answered, the estimate given then
 * is compared with the time {@code done} reached the member's sequence (issuance follows admission order up to one
 * drain batch), and the last {@link #ERRORS_KEPT} relative errors give the p50 and p90 the admin API shows.
 */
@Component
public class IssuePace {

    /**
     * The measured rate is the slope of {@code done} over this much of the latest busy ticks: {@code done} moves by the
     * worker's batches, in steps, and a rate measured over a fraction of a second swung from 0 to twice the real one
     * (a worker limited to 50 writes/s gave estimates from 0.4 to 300 per second, p90 error over 1,000%).
     */
    static final long WINDOW_NANOS = 5_000_000_000L;

    /** A window shorter than this measures nothing yet: two or three worker batches at least. */
    static final long MIN_WINDOW_NANOS = 1_500_000_000L;

    /**
     * Nor one where {@code done} moved fewer times than this: a worker that paused after its first batch once gave a
     * slope of 0.1/s, and estimates of three hours.
     */
    static final int MIN_STEPS = 3;

    /** In-flight requests (published, no outcome yet) worth more than this many seconds mean the pipeline is behind. */
    static final double BEHIND_SECONDS = 1.0;

    /**
     * The transit (publication to outcome) is the median of the crossings seen within this long: one batch's is a tick
     * or a worker's batch away from the next one's, and a fresh stack's first ones (the worker's first polls, its JIT)
     * took twice the later ones, so the last second only.
     */
    static final long TRANSIT_WINDOW_NANOS = 1_000_000_000L;

    /** Publications remembered until their outcome comes: a tick each while requests are in flight. */
    static final int PUBLICATIONS_KEPT = 1_000;

    /**
     * The rate is measured only while more than this many seconds' worth at the rate wait to be published (or the
     * pipeline is {@link #BEHIND_SECONDS behind}): with less, the drainer publishes each tick what came in, and the
     * outcomes' pace is the crowd's, not the pipeline's.
     */
    static final double BACKLOG_SECONDS = 0.5;

    /** A measured rate older than this is not used: nothing fed it (the coupon is no longer drained). */
    static final long STALE_NANOS = 5_000_000_000L;

    static final int ERRORS_KEPT = 1000;
    static final int PENDING_KEPT = 20_000;

    /** Waits shorter than this are not scored: one drain tick and a worker batch are a large part of them. */
    static final double MIN_SCORED_WAIT_SECONDS = 2.0;

    private final Map<Long, CouponPace> coupons = new ConcurrentHashMap<>();
    private final LongSupplier nanoTime;

    public IssuePace() {
        this(System::nanoTime);
    }

    /** With another clock, for tests. */
    IssuePace(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /**
     * One drain tick's view of a coupon.
     *
     * @param done members with an outcome (the {@code done} counter)
     * @param published requests handed to Kafka
     * @param admitted requests admitted
     * @param configuredRate the operator's rate
     * @param effectiveRate the drainer's rate now (at most the configured one; 0 when not set)
     * @param cutReason why the effective rate is below the configured one, or empty
     */
    public void observe(
            long couponId,
            long done,
            long published,
            long admitted,
            int configuredRate,
            double effectiveRate,
            String cutReason,
            long nowNanos) {
        coupons.computeIfAbsent(couponId, id -> new CouponPace())
                .observe(done, published, admitted, configuredRate, effectiveRate, cutReason, nowNanos);
    }

    /**
     * What this instance's drainer has published of the coupon in all just now, after the tick that observed the count
     * before it ({@link #observe}): until the next tick, estimates count these requests as out of the queue. Without
     * it they counted one tick's publication as still to go (the crossing bound, {@link Pace#waitMillis}, a tick too
     * long for a member right behind them).
     */
    public void published(long couponId, long published) {
        CouponPace pace = coupons.get(couponId);
        if (pace != null) {
            pace.published(published);
        }
    }

    /** What a waiting member's estimate assumes for this coupon now; {@code configuredRate} from the same read. */
    public Pace pace(long couponId, int configuredRate) {
        CouponPace pace = coupons.get(couponId);
        if (pace == null) {
            return Pace.configured(configuredRate);
        }
        return pace.pace(configuredRate, nanoTime.getAsLong());
    }

    /** A waiting status with the estimate this instance makes now. */
    public IssueStatus waiting(long couponId, String memberId, long sequence, long done, int configuredRate) {
        return IssueStatus.waiting(couponId, memberId, sequence, done, pace(couponId, configuredRate));
    }

    /** Keeps the estimate given to a newly admitted member, to score it when the member's turn comes. */
    public void estimated(long couponId, long sequence, Long estimatedMillis, long nowNanos) {
        if (estimatedMillis == null) {
            return; // no rate, no estimate to score
        }
        CouponPace pace = coupons.computeIfAbsent(couponId, id -> new CouponPace());
        pace.estimated(sequence, estimatedMillis, nowNanos);
    }

    /** How fast outcomes came in over the last busy seconds, per second; 0 when not measured lately. */
    public double clearingRate(long couponId) {
        CouponPace pace = coupons.get(couponId);
        return pace == null ? 0 : pace.clearingRate(nanoTime.getAsLong());
    }

    /** The drainer's effective rate and the reason of a cut, as this instance saw them last (empty if not seen). */
    public Snapshot snapshot(long couponId) {
        CouponPace pace = coupons.get(couponId);
        return pace == null ? Snapshot.NONE : pace.snapshot(nanoTime.getAsLong());
    }

    /** Forgets coupons no longer drained (retired), so the map does not grow with past events. */
    public void retainOnly(Collection<Long> couponIds) {
        coupons.keySet().retainAll(Set.copyOf(couponIds));
    }

    /**
     * The rates a waiting estimate assumes, per second: {@code assumed} gives {@code estimatedWaitSeconds}, {@code
     * fast} and {@code slow} the range around it.
     */
    public record Pace(
            double assumed,
            double fast,
            double slow,
            boolean measured,
            long transitMillis,
            long published,
            boolean pacing) {

        /** Rates alone: no transit measured, nothing known of what was published. */
        public Pace(double assumed, double fast, double slow, boolean measured) {
            this(assumed, fast, slow, measured, 0, -1, false);
        }

        static Pace configured(int rate) {
            // nothing measured yet: the configured rate, and as slow as the slowest cut the drainer would make first
            return new Pace(rate, rate, rate * RATE_CUT_FACTOR, false);
        }

        /**
         * The wait of the request with this {@code sequence} while {@code done} have an outcome, at {@code rate} per
         * second, in milliseconds: the longer of two lower bounds. Everyone ahead must be issued first ({@code (sequence
         * - done) / rate}: Little's law, the whole wait while the pipeline is busy at the rate), and the request itself
         * must cross the pipeline: the ones not yet published ahead of it at the rate, then the transit measured from
         * publication to outcome, or, once published, what is left of that transit. The second bound is what a crowd
         * slower than the rate waits: few are ahead of anyone, and the wait is the pipeline's own time (a drain tick, a
         * Kafka hop, a worker's batch), which the first bound leaves out. Only then: while the last tick found members
         * waiting to be published or the worker behind ({@code pacing}), the transit is inside the pace outcomes come
         * at, and adding it counted it twice (measured: every estimate of a steady event at 100/s about 0.2 s too
         * long, with one stock shard or six, the transit as timed at the ticks 0.3 s to 0.7 s while nothing stayed in
         * flight).
         */
        public long waitMillis(long sequence, long done, double rate) {
            long ahead = Math.max(1, sequence - done);
            long everyoneAhead = millisAt(ahead, rate);
            if (pacing || transitMillis <= 0 || published < 0) {
                return everyoneAhead;
            }
            long out = Math.max(published, done);
            long crossing = sequence > out
                    ? millisAt(sequence - out, rate) + transitMillis
                    : transitMillis * ahead / Math.max(1, out - done);
            return Math.max(everyoneAhead, crossing);
        }

        /** Milliseconds for {@code requests} at {@code rate} per second (one second each at no rate). */
        static long millisAt(long requests, double rate) {
            return rate > 0 ? Math.round(requests * 1000 / rate) : requests * 1000;
        }
    }

    /** The factor a cut multiplies the effective rate by (RateGovernor uses the same): the slow end of a range. */
    public static final double RATE_CUT_FACTOR = 0.5;

    /**
     * What the admin API shows: the rates and this instance's measured estimate error (null until scored).
     *
     * @param measuredRate issues per second as measured (0 when not measured: no backlog lately)
     * @param transitMillis the pipeline's time from publication to outcome that estimates count (0: none seen lately)
     * @param errorP50 median of |estimated - actual| / actual over the last scored admissions
     */
    public record Snapshot(
            int configuredRate,
            double effectiveRate,
            String cutReason,
            double measuredRate,
            double assumedRate,
            long transitMillis,
            int errorSamples,
            Double errorP50,
            Double errorP90) {
        public static final Snapshot NONE = new Snapshot(0, 0, "", 0, 0, 0, 0, null, null);
    }

    private record Pending(long sequence, long estimatedMillis, long admittedNanos) {}

    private static final class CouponPace {
        private int configuredRate;
        private double effectiveRate;
        private String cutReason = "";
        /** Outcomes while members waited at all: the rate governor's clearing rate. */
        private final RateWindow clearing = new RateWindow();
        /** Outcomes while members waited for the pipeline (a backlog to publish, or one in flight): the estimates'. */
        private final RateWindow paced = new RateWindow();

        private final Transit transit = new Transit();
        /** Published by this instance since the last tick (-1: nothing since): {@link IssuePace#published}. */
        private long sent = -1;

        private boolean behind;
        /** The last tick found members waiting to be published, or the worker behind: {@link Pace#pacing}. */
        private boolean pacing;

        private final PriorityQueue<Pending> pending =
                new PriorityQueue<>((a, b) -> Long.compare(a.sequence(), b.sequence()));
        private final double[] errors = new double[ERRORS_KEPT];
        private int errorCount;
        private int errorNext;

        synchronized void observe(
                long done, long published, long admitted, int configured, double effective, String reason, long now) {
            configuredRate = configured;
            effectiveRate = effective > 0 ? Math.min(effective, configured) : configured;
            cutReason = reason == null ? "" : reason;
            double rate = effectiveRate;
            behind = rate > 0 && Math.max(0, published - done) > rate * BEHIND_SECONDS;
            transit.observe(done, published, now);
            sent = -1;
            // only members waiting say how fast the coupon is issued: an idle coupon is not a slow one
            boolean waiting = rate > 0 && admitted > done;
            clearing.tick(waiting, done, now);
            // and for the estimates, only members waiting for the pipeline: a crowd slower than the rate has outcomes
            // that follow its arrivals, and a member arriving in a burst is then issued at the rate, not at that pace
            boolean backlog = admitted - published > rate * BACKLOG_SECONDS;
            pacing = waiting && (backlog || behind);
            paced.tick(pacing, done, now);
            score(done, now);
        }

        synchronized void published(long count) {
            sent = Math.max(sent, count);
        }

        synchronized double clearingRate(long now) {
            return clearing.rate(now);
        }

        synchronized Pace pace(int configured, long now) {
            double ceiling = effectiveRate > 0 ? Math.min(effectiveRate, configured) : configured;
            if (configured <= 0) {
                return Pace.configured(configured);
            }
            long published = Math.max(transit.published(), sent);
            long transitMillis = transit.millis(now, clearing.rate(now));
            if (!paced.fresh(now)) {
                // nothing measured lately: the drainer's pace, and as slow as its first cut
                return new Pace(ceiling, ceiling, ceiling * RATE_CUT_FACTOR, false, transitMillis, published, pacing);
            }
            // The rate the coupon is really issued at, never above the drainer's rate while it sets the pace (so that
            // an operator's cut counts at once), never above the operator's while the worker or MySQL sets it (behind,
            // or the drainer's rate cut for them: the governor moves the drainer's rate around what they take).
            double measured = paced.rate(now);
            double deviation = paced.deviation();
            double cap = behind || !cutReason.isEmpty() ? configured : ceiling;
            double assumed = Math.max(0.1, Math.min(cap, measured));
            double fast = Math.min(cap, measured + 2 * deviation);
            double slow = Math.max(0.1, Math.min(assumed, measured - 2 * deviation));
            return new Pace(assumed, Math.max(assumed, fast), slow, true, transitMillis, published, pacing);
        }

        synchronized void estimated(long sequence, long estimatedMillis, long now) {
            if (pending.size() < PENDING_KEPT) {
                pending.add(new Pending(sequence, estimatedMillis, now));
            }
        }

        /** Scores the admissions whose turn came: {@code done} reached their sequence. */
        private void score(long done, long now) {
            while (!pending.isEmpty() && pending.peek().sequence() <= done) {
                Pending turn = pending.poll();
                double actual = (now - turn.admittedNanos()) / 1e9;
                if (actual >= MIN_SCORED_WAIT_SECONDS) {
                    errors[errorNext] = Math.abs(turn.estimatedMillis() / 1000.0 - actual) / actual;
                    errorNext = (errorNext + 1) % errors.length;
                    errorCount = Math.min(errorCount + 1, errors.length);
                }
            }
        }

        synchronized Snapshot snapshot(long now) {
            Pace pace = pace(configuredRate, now);
            Double p50 = null;
            Double p90 = null;
            if (errorCount > 0) {
                double[] sorted = Arrays.copyOf(errors, errorCount);
                Arrays.sort(sorted);
                p50 = percentile(sorted, 0.5);
                p90 = percentile(sorted, 0.9);
            }
            return new Snapshot(
                    configuredRate,
                    effectiveRate,
                    cutReason,
                    round(paced.rate(now)),
                    round(pace.assumed()),
                    pace.transitMillis(),
                    errorCount,
                    p50,
                    p90);
        }
    }

    static double percentile(double[] sorted, double fraction) {
        int index = (int) Math.ceil(fraction * sorted.length) - 1;
        return Math.round(sorted[Math.max(0, Math.min(sorted.length - 1, index))] * 1000) / 1000.0;
    }

    private static double round(double value) {
        return Math.round(value * 10) / 10.0;
    }

    /** For tests: the coupons this instance keeps a pace for. */
    Collection<Long> coupons() {
        return new ArrayList<>(coupons.keySet());
    }
}
