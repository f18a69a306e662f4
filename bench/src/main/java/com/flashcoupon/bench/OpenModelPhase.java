package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.LoadRunner;

/**
 * Admissions arriving at a fixed rate whatever the answers' pace (an open model), up to a number of connections. Issue
 * 12: the rate is a share (70% by default) of the admissions per second the saturation phase measured in the same
 * run, so the percentiles measure latency below capacity rather than a backlog; {@code --open-rate} fixes it instead.
 */
final class OpenModelPhase implements Phase {

    @Override
    public boolean quiet() {
        return true;
    }

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int rate = rate(s.openRate(), s.openShare(), OverloadPhase.saturationAdmissions(b.r));
        if (rate < 1) {
            throw new IllegalStateException("the open model needs the saturation phase before it in the same run"
                    + " (--phases saturation,open) or --open-rate");
        }
        int total = (int)
                Math.max(1, Math.min(Integer.MAX_VALUE, rate * (s.openDuration().toMillis() / 1000.0)));
        b.ensureTokens(total);
        b.info(
                "open model: %,d/s for %d s (%,d requests), up to %d connections",
                rate, s.openDuration().toSeconds(), total, s.openConnections());
        b.r.open = b.onCoupon("open model", total, path -> {
            try (LoadRunner http = new LoadRunner(s.api(), s.openConnections(), s.timeout())) {
                return new OpenModel(OpenModel.Timeline.SYSTEM)
                        .run(
                                "open model " + rate + "/s",
                                s.openConnections(),
                                rate,
                                total,
                                (i, done) -> http.send(b.post(path, i))
                                        .subscribe(
                                                answer -> done.answered(Labels.of(answer.status(), answer.body())),
                                                done::failed),
                                s.timeout());
            }
        });
        b.r.openTargetRate = rate;
        b.r.openShare = s.openRate() > 0 ? 0 : s.openShare();
        b.info("open model: " + BenchRun.line(b.r.open.measured()));
    }

    /** The offered rate: {@code fixed} when set (above 0), else {@code share} of the measured admissions per second. */
    static int rate(int fixed, double share, double saturationAdmissions) {
        return fixed > 0 ? fixed : (int) Math.round(share * saturationAdmissions);
    }
}
