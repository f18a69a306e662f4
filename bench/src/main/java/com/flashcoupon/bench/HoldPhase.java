package com.flashcoupon.bench;

/** Many connections kept busy for a while: admissions under a long, wide closed loop. */
final class HoldPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        int connections = b.s.holdConnections();
        b.info("hold: " + connections + " connections for " + b.s.holdDuration().toSeconds() + " s");
        b.r.hold = b.onCoupon(
                "hold",
                10_000_000,
                path -> b.timedLoop(connections + " connections held", path, connections, b.s.holdDuration()));
        b.info("hold: " + BenchRun.line(b.r.hold));
    }
}
