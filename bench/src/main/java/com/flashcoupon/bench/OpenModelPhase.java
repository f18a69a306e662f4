package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.LoadRunner;

/** Admissions arriving at a fixed rate whatever the answers' pace (an open model), up to a number of connections. */
final class OpenModelPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int total = s.openTotal();
        b.info(
                "open model: %,d/s for %d s (%,d requests), up to %d connections",
                s.openRate(), s.openDuration().toSeconds(), total, s.openConnections());
        b.r.open = b.onCoupon("open model", total, path -> {
            try (LoadRunner http = new LoadRunner(s.api(), s.openConnections(), s.timeout())) {
                return new OpenModel(OpenModel.Timeline.SYSTEM)
                        .run(
                                "open model " + s.openRate() + "/s",
                                s.openConnections(),
                                s.openRate(),
                                total,
                                (i, done) -> http.send(b.post(path, i))
                                        .subscribe(
                                                answer -> done.answered(Labels.of(answer.status(), answer.body())),
                                                done::failed),
                                s.timeout());
            }
        });
        b.r.openTargetRate = s.openRate();
        b.info("open model: " + BenchRun.line(b.r.open.measured()));
    }
}
