package com.flashcoupon.bench;

/**
 * Issue 12's honest latency: the open model of the {@code open} phase, at the same rate and on the same connections,
 * against the reference server (Reactor Netty, Nimbus and the same script through Lettuce; no Spring), started and
 * warmed for it. What that server's tail is at this rate is the most the api's could be on this machine, whose cores
 * the load generator, Redis and the idle pipeline share.
 */
final class OpenReferencePhase implements Phase {

    @Override
    public boolean quiet() {
        return true;
    }

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int rate = OpenModelPhase.offeredRate(b, "open-reference");
        int total = s.openTotal(rate);
        b.ensureTokens(total);
        try (ReferenceProcess reference = SaturationPhase.startWarmed(b)) {
            b.info(
                    "open model, reference server: %,d/s for %d s",
                    rate, s.openDuration().toSeconds());
            long coupon = b.redis.scratch(total);
            try {
                OpenModelPhase.Run run = OpenModelPhase.overHttp(
                        b,
                        reference.url(),
                        reference.pid(),
                        "reference server, open model " + rate + "/s",
                        BenchRun.issuePath(coupon),
                        rate,
                        total);
                b.r.openReference = run.result();
                b.r.openReferenceCpu = run.cpu();
                b.info("open model, reference server: "
                        + BenchRun.line(run.result().measured()) + "; " + run.cpu());
            } finally {
                b.redis.delete(coupon);
            }
        }
    }
}
