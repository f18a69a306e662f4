package com.flashcoupon.bench;

import com.flashcoupon.loadgen.crowd.CouponAdmin;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * Growth: admissions and status reads measured with ever more requests queued (filled straight into Redis while the
 * coupon's drain is as good as paused). Issuance: that queue drained end to end into MySQL once the rate is raised,
 * against the raw MySQL insert rate.
 */
final class GrowthAndIssuancePhase implements Phase {

    private BenchRun b;
    private BenchSettings s;

    @Override
    public void run(BenchRun run) throws Exception {
        this.b = run;
        this.s = run.s;
        List<Integer> sizes = s.runs("growth") ? s.growthSizes() : List.of();
        long largest = sizes.isEmpty() ? 0 : sizes.get(sizes.size() - 1);
        long target = s.runs("issuance") ? Math.max(largest, s.issueCoupons()) : largest;
        long stock = Math.min(10_000_000, target + (long) s.growthProbes() * sizes.size() + 10);
        // Rate 1: the drain is as good as paused while the queue is filled and measured.
        long coupon = b.coupon("growth and issuance", stock, 1);
        String path = BenchRun.issuePath(coupon);
        // One admission over HTTP first: the api puts the coupon's mirror into Redis before the raw script fills it.
        try (LoadRunner http = new LoadRunner(s.api(), 1, s.timeout())) {
            http.send(HttpCall.post(path, b.tokens[b.tokens.length - 1])).block(s.timeout());
        }
        String fillers = "f" + b.runId + "-";
        long filled = 0;
        double fillSeconds = 0;
        for (int k = 0; k < sizes.size(); k++) {
            int size = sizes.get(k);
            long need = Math.max(0, size - b.redis.queued(coupon));
            long fill = System.nanoTime();
            b.redis.fill(coupon, fillers, filled, filled + need, 1000);
            fillSeconds += BenchRun.since(fill);
            filled += need;
            long queued = b.redis.queued(coupon);
            int offset = k * s.growthProbes();
            String[] readers = readers(fillers, filled, s.statusReads(), k);
            Measured admissions;
            Measured reads;
            try (LoadRunner http = new LoadRunner(s.api(), s.growthConcurrency(), s.timeout())) {
                admissions = BenchRun.measure(
                        http, "admissions, " + queued + " queued", s.growthProbes(), i -> b.post(path, offset + i));
                reads = BenchRun.measure(
                        http,
                        "status reads, " + queued + " queued",
                        readers.length,
                        i -> HttpCall.get(path + "/me", readers[i]));
            }
            b.r.growth.add(new Results.GrowthPoint(queued, admissions, reads, b.redis.usedMemory()));
            b.info(
                    "growth, %,d queued: admissions %s; status reads %s",
                    queued, BenchRun.line(admissions), BenchRun.line(reads));
        }
        if (!s.runs("issuance")) {
            b.closeQuietly(coupon);
            return;
        }
        long queued = b.redis.queued(coupon);
        if (queued < target) {
            long fill = System.nanoTime();
            b.redis.fill(coupon, fillers, filled, filled + (target - queued), 1000);
            fillSeconds += BenchRun.since(fill);
            queued = b.redis.queued(coupon);
        }
        issuance(coupon, queued, fillSeconds);
    }

    private void issuance(long coupon, long queued, double fillSeconds) throws Exception {
        Map<String, String> workerEnv = b.workerEnv;
        String limit = workerEnv == null
                ? "unknown (the worker's environment could not be read)"
                : workerEnv.containsKey("COUPON_WORKER_MAX_WRITES_PER_SECOND")
                        ? workerEnv.get("COUPON_WORKER_MAX_WRITES_PER_SECOND") + "/s"
                        : "the worker's default (COUPON_WORKER_MAX_WRITES_PER_SECOND not set)";
        b.info("issuance: %,d queued; raising the rate to 100,000/s", queued);
        double from = b.now();
        long t0 = System.currentTimeMillis();
        b.admin.patchRate(coupon, 100_000);
        b.admin.close(coupon);
        List<Results.Sample> progress = new ArrayList<>();
        long deadline = System.nanoTime() + s.issueTimeout().toNanos();
        long lastDone = -1;
        long lastMove = System.nanoTime();
        while (System.nanoTime() < deadline) {
            CouponAdmin.CouponStats stats = b.admin.stats(coupon);
            long done = stats.issued() + stats.failed();
            progress.add(new Results.Sample((System.currentTimeMillis() - t0) / 1000.0, stats.issued()));
            if (done >= queued) {
                break;
            }
            if (done != lastDone) {
                lastDone = done;
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > Duration.ofSeconds(60).toNanos()) {
                b.r.notes.add("issuance: no progress for 60 s at " + lastDone + " of " + queued + "; stopped waiting");
                break;
            }
            Thread.sleep(250);
        }
        double to = b.now();
        b.span("issuance", from, to);
        RawMysql mysql = new RawMysql(s.dbUrl(), s.dbUser(), s.dbPassword());
        RawMysql.Wallets wallets = mysql.wallets(coupon, t0);
        double drain = (wallets.lastMillis() - t0) / 1000.0;
        b.r.issuance = new Results.Issuance(
                coupon,
                queued,
                fillSeconds,
                wallets.count(),
                wallets.failures(),
                drain,
                wallets.before(),
                limit,
                progress);
        if (wallets.count() + wallets.failures() < queued) {
            b.note(
                    "issuance: %,d wallets and %,d failures for %,d queued when the wait ended",
                    wallets.count(), wallets.failures(), queued);
        }
        long written = wallets.count() - wallets.before();
        b.info("issuance: %,d wallets in %.1f s = %,.0f/s", written, drain, b.r.issuance.walletsPerSecond());
        long rows = Math.max(s.insertBatch(), written);
        b.r.rawInsert = mysql.insert(rows, s.insertBatch(), "r" + b.runId + "-");
        b.info("raw MySQL: %,d rows in %.1f s = %,.0f/s", rows, b.r.rawInsert.seconds(), b.r.rawInsert.rowsPerSecond());
    }

    /** Tokens of {@code n} members spread over the queue's first {@code filled} fillers. */
    private String[] readers(String fillers, long filled, int n, int salt) {
        Random random = new Random(s.seed() + salt);
        int distinct = (int) Math.min(n, Math.max(1, Math.min(filled, 20_000)));
        String[] pool = new String[distinct];
        for (int i = 0; i < distinct; i++) {
            pool[i] = b.minter.member(fillers + (filled <= 0 ? 0 : (long) (random.nextDouble() * filled)));
        }
        String[] readers = new String[n];
        for (int i = 0; i < n; i++) {
            readers[i] = pool[i % distinct];
        }
        return readers;
    }
}
