package com.flashcoupon.api.drain;

import com.flashcoupon.api.config.ApiProperties;
import java.util.Collection;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A coupon's effective issue rate, which follows what the database can take: cut multiplicatively when the worker's
 * write latency for the coupon or its backlog in flight (published, no outcome yet) passes a bound, raised step by step
 * once neither has for a while, never above the operator's rate. A cut waits {@code cutEvery} before the next one, so
 * that the previous cut has time to show in the signals (they lag by the requests already in flight). Plain Java, used
 * by the drainer's thread only.
 *
 * <p>Where the rate the backlog clears at is measured, it bounds both ways: a cut for a backlog goes no lower than
 * {@link #LAG_CUT_FLOOR} of it, and a raise no higher than {@link #PROBE_ABOVE_CLEARING} above it per step. Without
 * those bounds, a worker that writes 50/s under a rate of 100/s had the effective rate swing between 23/s (a second
 * cut while the first one's backlog was still clearing) and 83/s (raised step by step until the backlog broke the
 * bound again), issuance followed the swing, and the waiting estimates were off by 30 to 40%.
 */
final class RateGovernor {

    /** A backlog cut keeps at least this much of the measured clearing rate: the backlog drains, the worker stays busy. */
    static final double LAG_CUT_FLOOR = 0.9;

    /** A raise goes at most this much above the measured clearing rate (or the current rate, if higher) per step. */
    static final double PROBE_ABOVE_CLEARING = 0.2;

    private final ApiProperties.Adaptive settings;
    private final Map<Long, State> states = new HashMap<>();

    RateGovernor(ApiProperties.Adaptive settings) {
        this.settings = settings;
    }

    /**
     * What the worker and the pipeline look like for one coupon now: {@code clearingRate} is how fast outcomes come in
     * (per second, measured while there is a backlog; 0 when not known).
     */
    record Signals(long writeMillis, long inFlight, long done, double clearingRate) {

        Signals(long writeMillis, long inFlight, long done) {
            this(writeMillis, inFlight, done, 0);
        }

        Signals(long writeMillis, long inFlight) {
            this(writeMillis, inFlight, -1);
        }
    }

    /** The effective rate and, while it is below the configured one, why. */
    record Decision(double rate, String reason, boolean changed) {}

    /**
     * Resumes from what another instance (or this one before a restart) left in Redis, when this instance has no
     * state of its own for the coupon.
     */
    void resume(long couponId, double rate, String reason) {
        if (rate > 0 && !states.containsKey(couponId)) {
            State state = new State(rate);
            state.reason = reason == null ? "" : reason;
            states.put(couponId, state);
        }
    }

    /** One drain tick: the effective rate to drain at now. */
    Decision decide(long couponId, int configuredRate, Signals signals, long nowNanos) {
        if (!settings.enabled() || configuredRate <= 0) {
            states.remove(couponId);
            return new Decision(configuredRate, "", false);
        }
        State state = states.computeIfAbsent(couponId, id -> new State(configuredRate));
        double before = state.rate;
        String reasonBefore = state.reason;
        if (state.rate > configuredRate || state.reason.isEmpty()) {
            // the operator's rate holds unless a cut is in force: lowered, or raised with nothing to recover from
            state.rate = configuredRate;
        }
        if (signals.done() != state.lastDone || signals.inFlight() == 0) {
            state.lastDone = signals.done();
            state.lastProgressNanos = nowNanos;
        }
        Breach breach = breach(signals, state.rate, nowNanos - state.lastProgressNanos);
        double clearing = signals.clearingRate();
        if (breach != null) {
            state.lastBreachNanos = nowNanos;
            if (nowNanos - state.lastCutNanos >= settings.cutEvery().toNanos() || state.lastCutNanos == 0) {
                double cut = state.rate * settings.cutFactor();
                if (breach.backlog() && clearing > 0) {
                    // the backlog clears at its own pace: below it, the worker would idle once it has cleared
                    cut = Math.max(cut, Math.min(state.rate, clearing * LAG_CUT_FLOOR));
                }
                state.rate = Math.max(Math.min(settings.minRate(), configuredRate), cut);
                state.reason = breach.reason();
                state.lastCutNanos = nowNanos;
                state.lastStepNanos = nowNanos;
            }
        } else if (state.rate < configuredRate
                && nowNanos - state.lastBreachNanos >= settings.recoverAfter().toNanos()
                && nowNanos - state.lastStepNanos >= settings.stepEvery().toNanos()) {
            double raised = state.rate + Math.max(1, configuredRate * settings.stepFraction());
            if (clearing > 0) {
                // probe above what the backlog clears at, not far above: a worker that cannot take more shows it
                // again within a few seconds, and a recovered one is followed geometrically
                raised = Math.min(
                        raised, Math.max(state.rate + 1, Math.max(state.rate, clearing) * (1 + PROBE_ABOVE_CLEARING)));
            }
            state.rate = Math.min(configuredRate, raised);
            state.lastStepNanos = nowNanos;
        }
        if (state.rate >= configuredRate) {
            state.rate = configuredRate;
            state.reason = "";
        }
        boolean changed = Math.abs(state.rate - before) > 1e-9 || !state.reason.equals(reasonBefore);
        return new Decision(state.rate, state.reason, changed);
    }

    /** A bound passed: in words for the operator, and whether it was the backlog's time to clear. */
    private record Breach(String reason, boolean backlog) {}

    /** The bound passed, or null. */
    private Breach breach(Signals signals, double rate, long stalledNanos) {
        long maxWriteMillis = settings.maxWriteLatency().toMillis();
        if (signals.writeMillis() > maxWriteMillis) {
            return new Breach(
                    "WRITE_LATENCY: the worker's MySQL writes take " + signals.writeMillis() + " ms (bound "
                            + maxWriteMillis + " ms)",
                    false);
        }
        // The time the backlog in flight takes to clear, at the rate it really clears (the effective rate before that
        // is
        // measured). At the effective rate, each cut made the same backlog look longer and called for the next: a
        // worker limited to 50 writes/s had the rate cut from 100 to 3/s in 8 s while it still cleared 43/s.
        double clearing = signals.clearingRate() > 0 ? signals.clearingRate() : rate;
        double lagSeconds = clearing > 0 ? signals.inFlight() / clearing : 0;
        double maxLagSeconds = settings.maxLag().toMillis() / 1000.0;
        if (lagSeconds > maxLagSeconds) {
            return new Breach(
                    String.format(
                            Locale.ROOT,
                            "CONSUMER_LAG: %d published requests without an outcome, %.1f s at %.1f outcomes/s"
                                    + " (bound %.1f s)",
                            signals.inFlight(),
                            lagSeconds,
                            clearing,
                            maxLagSeconds),
                    true);
        }
        // a worker whose transactions fail (and are retried) reports no latency at all: no outcome for as long as the
        // backlog bound, with requests in flight, is lag too
        long maxLagNanos = settings.maxLag().toNanos();
        if (signals.done() >= 0 && signals.inFlight() > 0 && stalledNanos > maxLagNanos) {
            return new Breach(
                    String.format(
                            Locale.ROOT,
                            "CONSUMER_LAG: no outcome for %.1f s with %d published requests in flight (bound %.1f s)",
                            stalledNanos / 1e9,
                            signals.inFlight(),
                            maxLagSeconds),
                    false);
        }
        return null;
    }

    /** Forgets the coupon: another instance drains it, and leaves its rate in Redis for whoever drains next. */
    void forget(long couponId) {
        states.remove(couponId);
    }

    void retainOnly(Collection<Long> couponIds) {
        states.keySet().retainAll(Set.copyOf(couponIds));
    }

    private static final class State {
        double rate;
        String reason = "";
        long lastCutNanos;
        long lastStepNanos;
        long lastBreachNanos;
        long lastDone = -1;
        long lastProgressNanos;

        State(double rate) {
            this.rate = rate;
        }
    }
}
