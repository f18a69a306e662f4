package com.flashcoupon.bench;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.UsageException;
import com.flashcoupon.loadgen.crowd.CouponAdmin;
import com.flashcoupon.loadgen.crowd.CrowdPlan;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadResult;
import com.flashcoupon.loadgen.engine.LoadRunner;
import com.flashcoupon.loadgen.engine.ProgressListener;
import com.flashcoupon.loadgen.engine.ResponseClassifier;
import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;
import java.util.logging.Level;
import java.util.logging.Logger;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.util.Loggers;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code bin/bench}: runs the phases of issue 4 against the local stack and writes {@code report.md} and PNG charts.
 * A phase that fails is noted in the report and the run goes on; exit status 0 when a report was written, 2 on a bad
 * flag, 3 when the api could not be reached at all.
 */
public final class BenchMain {

    /** Held so that the levels set on them stay: java.util.logging keeps only weak references to its loggers. */
    private static final List<Logger> QUIET =
            List.of(Logger.getLogger("reactor.netty"), Logger.getLogger("io.netty"), Logger.getLogger("io.lettuce"));

    private static final ResponseClassifier LABELS = (index, status, body) -> Labels.of(status, body);

    private final BenchSettings s;
    private final PrintStream log;
    private final Results r = new Results();
    private final long startNanos = System.nanoTime();
    private final String runId = Long.toString(ThreadLocalRandom.current().nextLong(60_466_176L, 2_176_782_336L), 36);
    private String[] tokens;
    private CouponAdmin admin;
    private MemorySampler memory;

    BenchMain(BenchSettings settings, PrintStream log) {
        this.s = settings;
        this.log = log;
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true");
        Loggers.useJdkLoggers();
        QUIET.forEach(l -> l.setLevel(Level.SEVERE));
        System.exit(run(Arrays.asList(args), System.getenv(), Path.of("").toAbsolutePath()));
    }

    static int run(List<String> args, Map<String, String> env, Path root) {
        List<String> rest = new ArrayList<>(args);
        boolean quick = rest.remove("--quick");
        try {
            Flags flags = Flags.parse(rest, BenchSettings.OPTIONS, env);
            if (flags.help()) {
                System.out.print(usage());
                return 0;
            }
            BenchSettings settings = BenchSettings.from(quick, flags, env, root);
            if (settings.out() == null) {
                String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").format(LocalDateTime.now(ZoneOffset.UTC));
                settings = withOut(settings, root.resolve("bench-results").resolve(stamp));
            }
            return new BenchMain(settings, System.err).run(env);
        } catch (UsageException e) {
            System.err.println("bench: " + e.getMessage());
            System.err.print(usage());
            return 2;
        }
    }

    static String usage() {
        return "usage: bench [--quick] [--flag value ...]\n"
                + "  --quick          smaller sizes and shorter runs: about two minutes in all\n"
                + Flags.usage(BenchSettings.OPTIONS);
    }

    private static BenchSettings withOut(BenchSettings s, Path out) {
        return new BenchSettings(
                s.quick(),
                s.api(),
                s.workerUrl(),
                s.redisUrl(),
                s.dbUrl(),
                s.dbUser(),
                s.dbPassword(),
                s.jwtSecret(),
                s.script(),
                out,
                s.runDir(),
                s.phases(),
                s.warmup(),
                s.members(),
                s.twice(),
                s.crowdStock(),
                s.admissionIssueRate(),
                s.concurrency(),
                s.saturationConcurrency(),
                s.saturationRequests(),
                s.loadgenRequests(),
                s.openRate(),
                s.openDuration(),
                s.openConnections(),
                s.holdConnections(),
                s.holdDuration(),
                s.growthSizes(),
                s.growthProbes(),
                s.statusReads(),
                s.growthConcurrency(),
                s.issueCoupons(),
                s.insertBatch(),
                s.issueTimeout(),
                s.timeout(),
                s.seed());
    }

    int run(Map<String, String> env) {
        info("bench " + runId + (s.quick() ? " (quick)" : "") + ": results in " + s.out());
        Map<String, String> apiEnv = environment("api");
        Map<String, String> workerEnv = environment("worker");
        describe(env, apiEnv, workerEnv);

        long mint = System.nanoTime();
        JwtMinter minter = new JwtMinter(s.jwtSecret(), Clock.systemUTC(), Duration.ofHours(6));
        tokens = new String[s.tokenPool()];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = minter.member(member(i));
        }
        String operator = minter.operator("b" + runId + "-operator");
        info(String.format(Locale.ROOT, "minted %,d member tokens in %.1f s", tokens.length, since(mint)));

        try (LoadRunner control = new LoadRunner(s.api(), 4, s.timeout());
                RawRedis redis = new RawRedis(s.redisUrl(), s.script())) {
            admin = new CouponAdmin(control, JsonMapper.builder().build(), operator);
            r.setting("redis", s.redisUrl() + ", " + redis.persistence());
            String load = loadAverage();
            r.setting("load average at the start (1, 5, 15 min)", load);
            double load1 = load.isEmpty() ? 0 : Double.parseDouble(load.split(" ")[0]);
            if (load1 > Runtime.getRuntime().availableProcessors()) {
                r.notes.add("the machine was busy when the run started (load average " + load + " on "
                        + Runtime.getRuntime().availableProcessors() + " cores): the figures are noise");
            }
            if (probe(control, "/actuator/health") != 200) {
                log.println("bench: the api is not UP at " + s.api() + "/actuator/health (bin/up starts it)");
                return 3;
            }
            memory = new MemorySampler(
                    List.of(
                            new MemorySampler.App("api", pid("api"), s.api()),
                            new MemorySampler.App("worker", pid("worker"), s.workerUrl())),
                    startNanos);
            memory.start();
            phase("warmup", () -> warmup());
            phase("loadgen", () -> loadgen(control));
            phase("crowd", () -> crowd(redis));
            phase("saturation", () -> saturation(redis));
            phase("open", () -> open());
            phase("hold", () -> hold());
            if (s.runs("growth") || s.runs("issuance")) {
                phase("growth and issuance", () -> growthAndIssuance(redis, workerEnv));
            }
            memory.close();
            r.memory.add(memory.peak("api", "whole run", 0, since(startNanos)));
            r.memory.add(memory.peak("worker", "whole run", 0, since(startNanos)));
            for (MemorySampler.App app : memory.apps()) {
                List<MemorySampler.Point> points = memory.all(app.name());
                r.memorySeries.put(app.name() + " heap used", series(points, true));
                r.memorySeries.put(app.name() + " RSS", series(points, false));
            }
        } catch (IOException | RuntimeException e) {
            r.notes.add("the run stopped early: " + describe(e));
            log.println("bench: the run stopped early: " + describe(e));
        }
        return write();
    }

    private int write() {
        r.totalSeconds = since(startNanos);
        r.setting("load average at the end (1, 5, 15 min)", loadAverage());
        try {
            Files.createDirectories(s.out());
            List<String> charts = new ArrayList<>();
            try {
                charts = Charts.write(r, s.out());
            } catch (IOException | RuntimeException | Error e) {
                r.notes.add("charts not drawn: " + describe(e));
            }
            Path report = s.out().resolve("report.md");
            Files.writeString(report, Report.markdown(r, charts), StandardCharsets.UTF_8);
            info("report: " + report);
            return 0;
        } catch (IOException e) {
            log.println("bench: cannot write the report: " + describe(e));
            return 1;
        }
    }

    // ---------------------------------------------------------------- phases

    private void warmup() {
        long coupon = admin.create("bench " + runId + " warm-up", 10_000_000, s.admissionIssueRate());
        String path = issuePath(coupon);
        try (LoadRunner http = new LoadRunner(s.api(), s.saturationConcurrency(), s.timeout())) {
            info("warm-up: " + s.warmup().toSeconds() + " s at " + s.saturationConcurrency() + " connections");
            r.warmup = TimedLoop.run(http, "warm-up", s.warmup(), i -> post(path, i));
        } finally {
            closeQuietly(coupon);
        }
        info("warm-up: " + line(r.warmup));
    }

    private void loadgen(LoadRunner control) {
        DisposableServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .route(routes -> routes.get("/ping", (request, response) -> response.sendString(Mono.just("ok"))))
                .bindNow();
        try (LoadRunner http = new LoadRunner("http://127.0.0.1:" + server.port(), s.concurrency(), s.timeout())) {
            r.loadgenLocal = Measured.of(
                    "client vs in-JVM Netty server",
                    s.concurrency(),
                    http.run(s.loadgenRequests(), i -> HttpCall.get("/ping", null), LABELS, ProgressListener.NONE));
            info("client ceiling, local server: " + line(r.loadgenLocal));
        } finally {
            server.disposeNow(Duration.ofSeconds(5));
        }
        String liveness =
                probe(control, "/actuator/health/liveness") == 200 ? "/actuator/health/liveness" : "/actuator/health";
        try (LoadRunner http = new LoadRunner(s.api(), s.concurrency(), s.timeout())) {
            r.loadgenLiveness = Measured.of(
                    "client vs api " + liveness.substring("/actuator/".length()),
                    s.concurrency(),
                    http.run(s.loadgenRequests(), i -> HttpCall.get(liveness, null), LABELS, ProgressListener.NONE));
            info("client ceiling, api " + liveness + ": " + line(r.loadgenLiveness));
        }
    }

    private void crowd(RawRedis redis) throws InterruptedException {
        CrowdPlan order = CrowdPlan.shuffled(s.members(), s.twice(), new java.util.Random(s.seed()));
        long coupon = admin.create("bench " + runId + " crowd", s.crowdStock(), s.admissionIssueRate());
        String path = issuePath(coupon);
        info(String.format(
                Locale.ROOT,
                "crowd: %,d members (%,d asking twice), %,d coupons, %d connections",
                order.members(),
                order.askingTwice(),
                s.crowdStock(),
                s.concurrency()));
        double from = since(startNanos);
        try (LoadRunner http = new LoadRunner(s.api(), s.concurrency(), s.timeout())) {
            LoadResult result = http.run(
                    order.size(), i -> HttpCall.post(path, tokens[order.memberAt(i)]), LABELS, ProgressListener.NONE);
            r.crowd = Measured.of("crowd over HTTP", s.concurrency(), result);
            if (result.firstError() != null) {
                r.notes.add("crowd: first request without an answer: " + result.firstError());
            }
        } finally {
            closeQuietly(coupon);
        }
        double to = since(startNanos);
        span("crowd", from, to);
        r.memory.add(memory.peak("api", "crowd", from, to + 1));
        r.memory.add(memory.peak("worker", "crowd", from, to + 1));
        info("crowd: " + line(r.crowd));

        long scratch = scratchId();
        redis.scratchCoupon(scratch, s.crowdStock());
        try {
            r.rawRedisCrowd = redis.run(
                    "raw script, crowd", scratch, s.concurrency(), order.size(), i -> member(order.memberAt(i)));
        } finally {
            redis.delete(scratch);
        }
        info("raw script, crowd: " + line(r.rawRedisCrowd));
    }

    private void saturation(RawRedis redis) throws InterruptedException {
        int n = s.saturationRequests();
        long coupon = admin.create("bench " + runId + " saturation", n, s.admissionIssueRate());
        String path = issuePath(coupon);
        try (LoadRunner http = new LoadRunner(s.api(), s.saturationConcurrency(), s.timeout())) {
            r.saturation = Measured.of(
                    "saturation over HTTP",
                    s.saturationConcurrency(),
                    http.run(n, i -> post(path, i), LABELS, ProgressListener.NONE));
        } finally {
            closeQuietly(coupon);
        }
        info("saturation: " + line(r.saturation));
        long scratch = scratchId();
        redis.scratchCoupon(scratch, n);
        try {
            r.rawRedisSaturation =
                    redis.run("raw script, saturation", scratch, s.saturationConcurrency(), n, this::member);
        } finally {
            redis.delete(scratch);
        }
        info("raw script, saturation: " + line(r.rawRedisSaturation));
    }

    private void open() {
        int total = s.openTotal();
        long coupon = admin.create("bench " + runId + " open model", total, s.admissionIssueRate());
        String path = issuePath(coupon);
        info(String.format(
                Locale.ROOT,
                "open model: %,d/s for %d s (%,d requests), up to %d connections",
                s.openRate(),
                s.openDuration().toSeconds(),
                total,
                s.openConnections()));
        try (LoadRunner http = new LoadRunner(s.api(), s.openConnections(), s.timeout())) {
            r.open = new OpenModel(OpenModel.Timeline.SYSTEM)
                    .run(
                            "open model " + s.openRate() + "/s",
                            s.openConnections(),
                            s.openRate(),
                            total,
                            (i, done) -> http.send(post(path, i))
                                    .subscribe(
                                            answer -> done.answered(Labels.of(answer.status(), answer.body())),
                                            done::failed),
                            s.timeout());
            r.openTargetRate = s.openRate();
        } finally {
            closeQuietly(coupon);
        }
        info("open model: " + line(r.open.measured()));
    }

    private void hold() {
        long coupon = admin.create("bench " + runId + " hold", 10_000_000, s.admissionIssueRate());
        String path = issuePath(coupon);
        try (LoadRunner http = new LoadRunner(s.api(), s.holdConnections(), s.timeout())) {
            info("hold: " + s.holdConnections() + " connections for "
                    + s.holdDuration().toSeconds() + " s");
            r.hold = TimedLoop.run(
                    http, s.holdConnections() + " connections held", s.holdDuration(), i -> post(path, i));
        } finally {
            closeQuietly(coupon);
        }
        info("hold: " + line(r.hold));
    }

    private void growthAndIssuance(RawRedis redis, Map<String, String> workerEnv) throws Exception {
        List<Integer> sizes = s.runs("growth") ? s.growthSizes() : List.of();
        long largest = sizes.isEmpty() ? 0 : sizes.get(sizes.size() - 1);
        long target = s.runs("issuance") ? Math.max(largest, s.issueCoupons()) : largest;
        long stock = Math.min(10_000_000, target + (long) s.growthProbes() * sizes.size() + 10);
        // Rate 1: the drain is as good as paused while the queue is filled and measured.
        long coupon = admin.create("bench " + runId + " growth and issuance", stock, 1);
        String path = issuePath(coupon);
        // One admission over HTTP first: the api puts the coupon's mirror into Redis before the raw script fills it.
        try (LoadRunner http = new LoadRunner(s.api(), 1, s.timeout())) {
            http.send(HttpCall.post(path, tokens[tokens.length - 1])).block(s.timeout());
        }
        String fillers = "f" + runId + "-";
        long filled = 0;
        double fillSeconds = 0;
        for (int k = 0; k < sizes.size(); k++) {
            int size = sizes.get(k);
            long need = Math.max(0, size - redis.queued(coupon));
            long fill = System.nanoTime();
            redis.fill(coupon, fillers, filled, filled + need, 1000);
            fillSeconds += since(fill);
            filled += need;
            long queued = redis.queued(coupon);
            int offset = k * s.growthProbes();
            Measured admissions;
            Measured reads;
            try (LoadRunner http = new LoadRunner(s.api(), s.growthConcurrency(), s.timeout())) {
                admissions = Measured.of(
                        "admissions, " + queued + " queued",
                        s.growthConcurrency(),
                        http.run(
                                s.growthProbes(),
                                i -> HttpCall.post(path, tokens[(offset + i) % tokens.length]),
                                LABELS,
                                ProgressListener.NONE));
                String[] readers = readers(fillers, filled, s.statusReads(), k);
                reads = Measured.of(
                        "status reads, " + queued + " queued",
                        s.growthConcurrency(),
                        http.run(
                                readers.length,
                                i -> HttpCall.get(path + "/me", readers[i]),
                                LABELS,
                                ProgressListener.NONE));
            }
            r.growth.add(new Results.GrowthPoint(queued, admissions, reads, redis.usedMemory()));
            info(String.format(
                    Locale.ROOT,
                    "growth, %,d queued: admissions %s; status reads %s",
                    queued,
                    line(admissions),
                    line(reads)));
        }
        if (!s.runs("issuance")) {
            closeQuietly(coupon);
            return;
        }
        long queued = redis.queued(coupon);
        if (queued < target) {
            long fill = System.nanoTime();
            redis.fill(coupon, fillers, filled, filled + (target - queued), 1000);
            fillSeconds += since(fill);
            queued = redis.queued(coupon);
        }
        issuance(coupon, queued, fillSeconds, workerEnv);
    }

    private void issuance(long coupon, long queued, double fillSeconds, Map<String, String> workerEnv)
            throws Exception {
        String limit = workerEnv == null
                ? "unknown (the worker's environment could not be read)"
                : workerEnv.containsKey("COUPON_WORKER_MAX_WRITES_PER_SECOND")
                        ? workerEnv.get("COUPON_WORKER_MAX_WRITES_PER_SECOND") + "/s"
                        : "the worker's default (COUPON_WORKER_MAX_WRITES_PER_SECOND not set)";
        info(String.format(Locale.ROOT, "issuance: %,d queued; raising the rate to 100,000/s", queued));
        double from = since(startNanos);
        long t0 = System.currentTimeMillis();
        admin.patchRate(coupon, 100_000);
        admin.close(coupon);
        List<Results.Sample> progress = new ArrayList<>();
        long deadline = System.nanoTime() + s.issueTimeout().toNanos();
        long lastDone = -1;
        long lastMove = System.nanoTime();
        while (System.nanoTime() < deadline) {
            CouponAdmin.CouponStats stats = admin.stats(coupon);
            long issued = stats.issued();
            long failed = stats.failed();
            progress.add(new Results.Sample((System.currentTimeMillis() - t0) / 1000.0, issued));
            if (issued + failed >= queued) {
                break;
            }
            if (issued + failed != lastDone) {
                lastDone = issued + failed;
                lastMove = System.nanoTime();
            } else if (System.nanoTime() - lastMove > Duration.ofSeconds(60).toNanos()) {
                r.notes.add("issuance: no progress for 60 s at " + lastDone + " of " + queued + "; stopped waiting");
                break;
            }
            Thread.sleep(250);
        }
        double to = since(startNanos);
        span("issuance", from, to);
        r.memory.add(memory.peak("api", "issuance", from, to + 1));
        r.memory.add(memory.peak("worker", "issuance", from, to + 1));
        RawMysql mysql = new RawMysql(s.dbUrl(), s.dbUser(), s.dbPassword());
        RawMysql.Wallets wallets = mysql.wallets(coupon, t0);
        double drain = (wallets.lastMillis() - t0) / 1000.0;
        r.issuance = new Results.Issuance(
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
            r.notes.add(String.format(
                    Locale.ROOT,
                    "issuance: %,d wallets and %,d failures for %,d queued when the wait ended",
                    wallets.count(),
                    wallets.failures(),
                    queued));
        }
        info(String.format(
                Locale.ROOT,
                "issuance: %,d wallets in %.1f s = %,.0f/s",
                wallets.count() - wallets.before(),
                drain,
                r.issuance.walletsPerSecond()));
        long rows = Math.max(s.insertBatch(), wallets.count() - wallets.before());
        r.rawInsert = mysql.insert(rows, s.insertBatch(), "r" + runId + "-");
        info(String.format(
                Locale.ROOT,
                "raw MySQL: %,d rows in %.1f s = %,.0f/s",
                rows,
                r.rawInsert.seconds(),
                r.rawInsert.rowsPerSecond()));
    }

    // ---------------------------------------------------------------- helpers

    private interface Phase {
        void run() throws Exception;
    }

    private void phase(String name, Phase phase) {
        boolean wanted = name.equals("growth and issuance") || s.runs(name);
        if (!wanted) {
            return;
        }
        try {
            phase.run();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            r.notes.add(name + ": interrupted");
        } catch (Exception | Error e) {
            r.notes.add(name + " failed: " + describe(e));
            log.println("bench: " + name + " failed: " + describe(e));
        }
    }

    private void describe(Map<String, String> env, Map<String, String> apiEnv, Map<String, String> workerEnv) {
        r.setting("mode", s.quick() ? "quick (bin/bench --quick): smaller sizes, figures indicative only" : "full");
        r.setting("commit", env.getOrDefault("BENCH_COMMIT", "unknown"));
        r.setting(
                "machine",
                Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
                        + " (this client)");
        r.setting("api", s.api() + (apiEnv == null ? " (its environment could not be read)" : ""));
        for (String key : List.of(
                "COUPON_RATELIMIT_ADDRESS_PER_SECOND",
                "COUPON_RATELIMIT_MEMBER_PER_SECOND",
                "COUPON_DRAIN_MAX_BATCH")) {
            if (apiEnv != null) {
                r.setting("api " + key, apiEnv.getOrDefault(key, "not set"));
            }
        }
        if (workerEnv != null) {
            r.setting(
                    "worker COUPON_WORKER_MAX_WRITES_PER_SECOND",
                    workerEnv.getOrDefault("COUPON_WORKER_MAX_WRITES_PER_SECOND", "not set (worker default)"));
        }
        r.setting("phases", String.join(", ", s.phases()));
        r.setting(
                "warm-up", s.warmup().toSeconds() + " s closed loop at " + s.saturationConcurrency() + " connections");
        r.setting(
                "crowd",
                Fmt.count(s.members()) + " members, " + Math.round(s.twice() * 100) + "% asking twice, "
                        + Fmt.count(s.crowdStock()) + " coupons, " + s.concurrency() + " connections");
        r.setting("admission runs' issue rate", s.admissionIssueRate() + "/s (1: drain paused, admission alone)");
        r.setting(
                "saturation",
                Fmt.count(s.saturationRequests()) + " requests at " + s.saturationConcurrency() + " connections");
        r.setting(
                "open model",
                Fmt.count(s.openRate()) + "/s for " + s.openDuration().toSeconds() + " s, up to " + s.openConnections()
                        + " connections");
        r.setting(
                "hold",
                s.holdConnections() + " connections for " + s.holdDuration().toSeconds() + " s");
        r.setting(
                "growth",
                "queued " + s.growthSizes() + ", " + Fmt.count(s.growthProbes()) + " admissions and "
                        + Fmt.count(s.statusReads()) + " status reads at " + s.growthConcurrency()
                        + " connections each");
        r.setting(
                "issuance",
                "at least " + Fmt.count(s.issueCoupons()) + " coupons, raw inserts in batches of " + s.insertBatch());
        r.setting("seed", s.seed());
    }

    /** Tokens of {@code n} members spread over the queue's first {@code filled} fillers. */
    private String[] readers(String fillers, long filled, int n, int salt) {
        JwtMinter minter = new JwtMinter(s.jwtSecret(), Clock.systemUTC(), Duration.ofHours(6));
        Random random = new Random(s.seed() + salt);
        int distinct = (int) Math.min(n, Math.max(1, Math.min(filled, 20_000)));
        String[] pool = new String[distinct];
        for (int i = 0; i < distinct; i++) {
            pool[i] = minter.member(fillers + (filled <= 0 ? 0 : (long) (random.nextDouble() * filled)));
        }
        String[] readers = new String[n];
        for (int i = 0; i < n; i++) {
            readers[i] = pool[i % distinct];
        }
        return readers;
    }

    /** One GET without a token; the answer's status, or -1 when nothing answered. */
    private static int probe(LoadRunner http, String path) {
        try {
            return http.send(HttpCall.get(path, null))
                    .block(Duration.ofSeconds(5))
                    .status();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    private String member(int i) {
        return "b" + runId + "-" + i;
    }

    private HttpCall post(String path, int i) {
        return HttpCall.post(path, tokens[i % tokens.length]);
    }

    private static String issuePath(long coupon) {
        return "/api/v1/coupons/" + coupon + "/issue-requests";
    }

    private static long scratchId() {
        return 8_000_000_000_000L + ThreadLocalRandom.current().nextLong(1_000_000_000L);
    }

    private void closeQuietly(long coupon) {
        try {
            admin.close(coupon);
        } catch (RuntimeException e) {
            r.notes.add("could not close coupon " + coupon + ": " + describe(e));
        }
    }

    private void span(String name, double from, double to) {
        r.phaseSpans.add(new String[] {name, Double.toString(from), Double.toString(to)});
    }

    private long pid(String app) {
        try {
            return Long.parseLong(
                    Files.readString(s.runDir().resolve(app + ".pid")).strip());
        } catch (IOException | NumberFormatException e) {
            r.notes.add("no pid for " + app + " in " + s.runDir() + ": its RSS is not sampled");
            return -1;
        }
    }

    /** The environment the app was started with (from /proc), or null when it cannot be read. */
    private Map<String, String> environment(String app) {
        try {
            long pid = Long.parseLong(
                    Files.readString(s.runDir().resolve(app + ".pid")).strip());
            String raw = Files.readString(Path.of("/proc/" + pid + "/environ"), StandardCharsets.UTF_8);
            Map<String, String> env = new HashMap<>();
            for (String entry : raw.split("\0")) {
                int eq = entry.indexOf('=');
                if (eq > 0 && entry.startsWith("COUPON_")) {
                    env.put(entry.substring(0, eq), entry.substring(eq + 1));
                }
            }
            return env;
        } catch (IOException | NumberFormatException e) {
            return null;
        }
    }

    /** The first three fields of /proc/loadavg, or "" where there is none. */
    private static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).strip().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }

    private static List<Results.Sample> series(List<MemorySampler.Point> points, boolean heap) {
        List<Results.Sample> samples = new ArrayList<>();
        for (MemorySampler.Point p : points) {
            long bytes = heap ? p.heapBytes() : p.rssBytes();
            if (bytes >= 0) {
                samples.add(new Results.Sample(p.seconds(), bytes / (1024.0 * 1024.0)));
            }
        }
        return samples;
    }

    private static String line(Measured m) {
        return String.format(
                Locale.ROOT,
                "%,d in %.1f s = %,.0f/s, p50 %s, p99 %s, p99.9 %s, %s",
                m.total(),
                m.elapsed().toMillis() / 1000.0,
                m.perSecond(),
                Fmt.ms(m.millis(50)),
                Fmt.ms(m.millis(99)),
                Fmt.ms(m.millis(99.9)),
                Report.outcomes(m.outcomes()));
    }

    private static double since(long nanos) {
        return (System.nanoTime() - nanos) / 1e9;
    }

    private void info(String message) {
        log.printf(Locale.ROOT, "[%6.1f s] %s%n", since(startNanos), message);
    }

    private static String describe(Throwable e) {
        String name = e.getClass().getSimpleName();
        return e.getMessage() == null
                ? name
                : name + ": " + e.getMessage().lines().findFirst().orElse("");
    }
}
