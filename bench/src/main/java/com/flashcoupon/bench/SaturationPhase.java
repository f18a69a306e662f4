package com.flashcoupon.bench;

/** Admissions of distinct members as fast as they are answered, over HTTP and then straight at the script. */
final class SaturationPhase implements Phase {

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int n = s.saturationRequests();
        int connections = s.saturationConcurrency();
        b.r.saturation = b.onCoupon(
                "saturation",
                n,
                path -> Measured.of(
                        "saturation over HTTP",
                        connections,
                        BenchRun.closedRun(s.api(), connections, s.timeout(), n, i -> b.post(path, i))));
        b.info("saturation: " + BenchRun.line(b.r.saturation));
        b.r.rawRedisSaturation = b.redis.runOnScratch("raw script, saturation", n, connections, n, b::member);
        b.info("raw script, saturation: " + BenchRun.line(b.r.rawRedisSaturation));
    }
}
