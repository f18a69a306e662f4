package com.flashcoupon.bench;

import java.time.Duration;

/**
 * Issue 12's saturation: admissions of distinct members as fast as they are answered (a closed loop at the same
 * concurrency throughout), against the api, against the reference server (Reactor Netty, Nimbus and the same script
 * through Lettuce, no Spring: the most this work can do here), against the raw script without pipelining (one script
 * in flight per connection) and, as information only, the raw script pipelined on one connection. The api's CPU time
 * per admission comes from {@code /proc/<pid>/stat} over its run.
 */
final class SaturationPhase implements Phase {

    /** The reference server's own warm-up: its JIT has to reach the api's warmed state before it is measured. */
    static final Duration REFERENCE_WARMUP = Duration.ofSeconds(30);

    @Override
    public boolean quiet() {
        return true;
    }

    @Override
    public void run(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        int n = s.saturationRequests();
        int connections = s.saturationConcurrency();
        CpuMeter apiCpu = new CpuMeter(b.apiPid);
        CpuMeter redisCpu = new CpuMeter(b.redisPid);
        b.r.saturation = b.onCoupon("saturation", n, path -> {
            apiCpu.start();
            redisCpu.start();
            Measured m = Measured.of(
                    "api, closed loop",
                    connections,
                    BenchRun.closedRun(s.api(), connections, s.timeout(), n, i -> b.post(path, i)));
            apiCpu.stop();
            redisCpu.stop();
            return m;
        });
        b.r.apiCpuMicrosPerAdmission = apiCpu.microsPer(b.r.saturation.count("202"));
        b.r.redisCpuMicrosPerAdmissionApi = redisCpu.microsPer(b.r.saturation.count("202"));
        b.info(
                "saturation, api: %s; CPU per admission: api %s, Redis %s",
                BenchRun.line(b.r.saturation),
                Fmt.micros(b.r.apiCpuMicrosPerAdmission),
                Fmt.micros(b.r.redisCpuMicrosPerAdmissionApi));

        reference(b, n, connections);

        b.r.rawUnpipelined = b.redis.runUnpipelined("raw script, not pipelined", connections, n, b::member);
        b.info("raw script, not pipelined: " + BenchRun.line(b.r.rawUnpipelined));
        b.r.rawRedisSaturation =
                b.redis.runOnScratch("raw script, pipelined (information)", n, connections, n, b::member);
        b.info("raw script, pipelined: " + BenchRun.line(b.r.rawRedisSaturation));
    }

    /** The reference server, started here in its own JVM, warmed, then measured like the api. */
    private static void reference(BenchRun b, int n, int connections) throws Exception {
        BenchSettings s = b.s;
        try (ReferenceProcess reference = startWarmed(b)) {
            long coupon = b.redis.scratch(n);
            CpuMeter cpu = new CpuMeter(reference.pid());
            CpuMeter redisCpu = new CpuMeter(b.redisPid);
            try {
                cpu.start();
                redisCpu.start();
                b.r.reference = Measured.of(
                        "reference server, closed loop",
                        connections,
                        BenchRun.closedRun(
                                reference.url(),
                                connections,
                                s.timeout(),
                                n,
                                i -> b.post(BenchRun.issuePath(coupon), i)));
                cpu.stop();
                redisCpu.stop();
            } finally {
                b.redis.delete(coupon);
            }
            b.r.referenceCpuMicrosPerAdmission = cpu.microsPer(b.r.reference.count("202"));
            b.r.redisCpuMicrosPerAdmissionReference = redisCpu.microsPer(b.r.reference.count("202"));
            b.r.referenceJvmOptions =
                    String.join(" ", ReferenceProcess.jvmOptionsOf(reference.pid(), java.util.List.of()));
            b.info(
                    "saturation, reference server: %s; CPU per admission %s",
                    BenchRun.line(b.r.reference), Fmt.micros(b.r.referenceCpuMicrosPerAdmission));
        }
    }

    /**
     * The reference server in its own JVM with the api's JVM options and rate limits, warmed by a closed loop at the
     * saturation's concurrency (its JIT has to reach the api's warmed state before it is measured); the caller stops
     * it.
     */
    static ReferenceProcess startWarmed(BenchRun b) throws Exception {
        BenchSettings s = b.s;
        ReferenceServer.Settings settings = new ReferenceServer.Settings(
                s.redisUrl(), s.jwtSecret(), s.script(), b.memberPerSecond, b.addressPerSecond);
        ReferenceProcess reference = ReferenceProcess.start(
                settings,
                ReferenceProcess.jvmOptionsOf(b.apiPid, java.util.List.of("-XX:+UseParallelGC")),
                s.out().resolve("reference-server.log"));
        try {
            b.info("reference server: pid %d, port %d", reference.pid(), reference.port());
            Duration warmup = s.warmup().compareTo(REFERENCE_WARMUP) < 0 ? s.warmup() : REFERENCE_WARMUP;
            long warm = b.redis.scratch(10_000_000);
            try (var http = new com.flashcoupon.loadgen.engine.LoadRunner(
                    reference.url(), s.saturationConcurrency(), s.timeout())) {
                Measured w = TimedLoop.run(http, "reference warm-up", warmup, i -> b.post(BenchRun.issuePath(warm), i));
                b.info("reference server warm-up: " + BenchRun.line(w));
            } finally {
                b.redis.delete(warm);
            }
            return reference;
        } catch (Exception | Error e) {
            reference.close();
            throw e;
        }
    }
}
