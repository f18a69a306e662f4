package com.flashcoupon.bench;

/**
 * Issue 11: admissions offered at a multiple (twice by default) of the admission rate the saturation phase measured in
 * the same run, as an open model for a length of time. Over capacity, every request must still get a fast answer: a
 * place in line (202) or a 503 with {@code Retry-After} from the overload guard, never a time-out. Needs the saturation
 * phase earlier in the run, or {@code --overload-rate}.
 */
final class OverloadPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        double base = s.overloadRate() > 0 ? s.overloadRate() / s.overloadFactor() : saturationAdmissions(b.r);
        if (!(base > 0)) {
            throw new IllegalStateException("the overload phase needs the saturation phase before it in the same run"
                    + " (--phases saturation,overload) or --overload-rate");
        }
        int rate = (int) Math.max(1, Math.round(base * s.overloadFactor()));
        int total = (int) Math.max(
                1, Math.min(Integer.MAX_VALUE, rate * (s.overloadDuration().toMillis() / 1000.0)));
        b.ensureTokens(total);
        b.info(
                "overload: %,d/s (%.1f × %,.0f admissions/s) for %d s (%,d requests), up to %d connections",
                rate, s.overloadFactor(), base, s.overloadDuration().toSeconds(), total, s.openConnections());
        double from = b.now();
        b.r.overload = b.onCoupon(
                        "overload",
                        total,
                        path -> OpenModelPhase.overHttp(
                                b, s.api(), b.apiPid, "overload " + rate + "/s", path, rate, total))
                .result();
        b.r.overloadBase = base;
        b.span("overload", from, b.now());
        b.info("overload: " + BenchRun.line(b.r.overload.measured()));
    }

    /** Admissions (202) per second of the saturation phase; 0 when it did not run. */
    static double saturationAdmissions(Results r) {
        return r.saturation == null ? 0 : admissionsPerSecond(r.saturation);
    }

    /** Answers 202 (a place in line) per second of a run. */
    static double admissionsPerSecond(Measured m) {
        double seconds = m.elapsed().toNanos() / 1e9;
        return seconds > 0 ? m.count("202") / seconds : 0;
    }
}
