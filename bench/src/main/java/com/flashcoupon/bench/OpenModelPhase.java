package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.LoadRunner;

/**
 * Admissions arriving at a fixed rate whatever the answers' pace (an open model), up to a number of connections. Issue
 * 12: the rate is a share (70% by default) of the admissions per second the saturation phase measured in the same
 * run, so the percentiles measure latency below capacity rather than a backlog; {@code --open-rate} fixes it instead.
 * The CPU each process spent per request over the run is measured too: the api's, this load generator's (it shares
 * the api's cores) and Redis'.
 */
final class OpenModelPhase implements Phase {

    @Override
    public boolean quiet() {
        return true;
    }

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int rate = offeredRate(b, "open");
        int total = s.openTotal(rate);
        b.ensureTokens(total);
        b.info(
                "open model: %,d/s for %d s (%,d requests), up to %d connections",
                rate, s.openDuration().toSeconds(), total, s.openConnections());
        Run run = b.onCoupon(
                "open model",
                total,
                path -> overHttp(b, s.api(), b.apiPid, "open model " + rate + "/s", path, rate, total));
        b.r.open = run.result();
        b.r.openCpu = run.cpu();
        b.r.openTargetRate = rate;
        b.r.openShare = s.openRate() > 0 ? 0 : s.openShare();
        b.info("open model: " + BenchRun.line(b.r.open.measured()) + "; " + run.cpu());
    }

    /**
     * The open model's offered rate: the one the open phase used earlier in this run, else {@code --open-rate}, else
     * {@code --open-share} of the saturation phase's admissions per second.
     */
    static int offeredRate(BenchRun b, String phase) {
        if (b.r.openTargetRate > 0) {
            return b.r.openTargetRate;
        }
        int rate = rate(b.s.openRate(), b.s.openShare(), OverloadPhase.saturationAdmissions(b.r));
        if (rate < 1) {
            throw new IllegalStateException("the " + phase + " phase needs the saturation phase before it in the same"
                    + " run (--phases saturation," + phase + ") or --open-rate");
        }
        return rate;
    }

    /** The offered rate: {@code fixed} when set (above 0), else {@code share} of the measured admissions per second. */
    static int rate(int fixed, double share, double saturationAdmissions) {
        return fixed > 0 ? fixed : (int) Math.round(share * saturationAdmissions);
    }

    /** CPU microseconds per answered request of one run: the server's, this load generator's, Redis' (-1: unknown). */
    record Cpu(double server, double client, double redis) {
        @Override
        public String toString() {
            return "CPU per request: server " + Fmt.micros(server) + ", load generator " + Fmt.micros(client)
                    + ", Redis " + Fmt.micros(redis);
        }
    }

    record Run(OpenModel.Result result, Cpu cpu) {}

    /**
     * {@code total} admissions of distinct members at {@code path}, started at {@code rate} per second whatever the
     * answers' pace, on up to {@code --open-connections} connections to {@code baseUrl}.
     */
    static Run overHttp(BenchRun b, String baseUrl, long serverPid, String label, String path, int rate, int total) {
        BenchSettings s = b.s;
        CpuMeter server = new CpuMeter(serverPid);
        CpuMeter client = new CpuMeter(ProcessHandle.current().pid());
        CpuMeter redis = new CpuMeter(b.redisPid);
        try (LoadRunner http = new LoadRunner(baseUrl, s.openConnections(), s.timeout())) {
            server.start();
            client.start();
            redis.start();
            OpenModel.Result result = new OpenModel(OpenModel.Timeline.SYSTEM)
                    .run(
                            label,
                            s.openConnections(),
                            rate,
                            total,
                            (i, done) -> http.send(b.post(path, i))
                                    .subscribe(
                                            answer -> done.answered(Labels.of(answer.status(), answer.body())),
                                            done::failed),
                            s.timeout());
            server.stop();
            client.stop();
            redis.stop();
            long answered = result.measured().total() - result.measured().count(Measured.NO_ANSWER);
            return new Run(
                    result, new Cpu(server.microsPer(answered), client.microsPer(answered), redis.microsPer(answered)));
        }
    }
}
