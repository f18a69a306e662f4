package com.flashcoupon.bench;

/** A closed loop of admissions for a while, so that the measured phases find warm JVMs. */
final class WarmupPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        int connections = b.s.saturationConcurrency();
        b.info("warm-up: " + b.s.warmup().toSeconds() + " s at " + connections + " connections");
        b.r.warmup = b.onCoupon("warm-up", 10_000_000, path -> b.timedLoop("warm-up", path, connections, b.s.warmup()));
        b.info("warm-up: " + BenchRun.line(b.r.warmup));
    }
}
