package com.flashcoupon.bench;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.UsageException;
import com.flashcoupon.loadgen.crowd.CouponAdmin;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import reactor.util.Loggers;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code bin/bench}: runs the chosen phases of issue 4 in order against the local stack and writes {@code report.md}
 * and PNG charts. A phase that fails is noted in the report and the run goes on; exit status 0 when a report was
 * written, 2 on a bad flag, 3 when the api could not be reached at all.
 */
public final class BenchMain {

    /** Held so that the levels set on them stay: java.util.logging keeps only weak references to its loggers. */
    private static final List<Logger> QUIET =
            List.of(Logger.getLogger("reactor.netty"), Logger.getLogger("io.netty"), Logger.getLogger("io.lettuce"));

    /** A phase and the names {@code --phases} selects it by (either of them). */
    record Step(List<String> names, Phase phase) {

        String name() {
            return String.join(" and ", names);
        }

        boolean wanted(BenchSettings settings) {
            return names.stream().anyMatch(settings::runs);
        }
    }

    /** Every phase, in the order they run. */
    static final List<Step> PHASES = List.of(
            new Step(List.of("warmup"), new WarmupPhase()),
            new Step(List.of("loadgen"), new LoadgenCeilingPhase()),
            new Step(List.of("crowd"), new CrowdPhase()),
            new Step(List.of("saturation"), new SaturationPhase()),
            new Step(List.of("open"), new OpenModelPhase()),
            new Step(List.of("open-reference"), new OpenReferencePhase()),
            new Step(List.of("overload"), new OverloadPhase()),
            new Step(List.of("hold"), new HoldPhase()),
            new Step(List.of("slow-clients"), new SlowClientsPhase()),
            new Step(List.of("growth", "issuance"), new GrowthAndIssuancePhase()),
            new Step(List.of("estimates"), new EstimatesPhase()),
            new Step(List.of("draw"), new DrawPhase()),
            new Step(List.of("stampede"), new StampedePhase()));

    private final BenchSettings s;
    private final PrintStream log;
    private final BenchRun b;

    BenchMain(BenchSettings settings, PrintStream log) {
        this.s = settings;
        this.log = log;
        this.b = new BenchRun(settings, log);
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
            return new BenchMain(BenchSettings.from(quick, flags, env, root), System.err).run(env);
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

    int run(Map<String, String> env) {
        Results r = b.r;
        b.info("bench " + b.runId + (s.quick() ? " (quick)" : "") + ": results in " + s.out());
        long apiPid = pid("api");
        long workerPid = pid("worker");
        Map<String, String> apiEnv = environment(apiPid);
        b.workerEnv = environment(workerPid);
        b.apiPid = apiPid;
        b.memberPerSecond = rate(apiEnv, env, "COUPON_RATELIMIT_MEMBER_PER_SECOND", 5);
        b.addressPerSecond = rate(apiEnv, env, "COUPON_RATELIMIT_ADDRESS_PER_SECOND", 100);
        describe(env, apiEnv, b.workerEnv);

        long mint = System.nanoTime();
        b.tokens = new String[s.tokenPool()];
        for (int i = 0; i < b.tokens.length; i++) {
            b.tokens[i] = b.minter.member(b.member(i));
        }
        String operator = b.minter.operator("b" + b.runId + "-operator");
        b.info("minted %,d member tokens in %.1f s", b.tokens.length, BenchRun.since(mint));

        try (LoadRunner control = new LoadRunner(s.api(), 4, s.timeout());
                RawRedis redis = new RawRedis(s.redisUrl(), s.script(), b.memberPerSecond, b.addressPerSecond)) {
            b.control = control;
            b.redis = redis;
            b.admin = new CouponAdmin(control, JsonMapper.builder().build(), operator);
            String persistence = redis.persistence();
            r.setting(
                    "redis",
                    s.redisUrl() + ", " + persistence
                            + (env.containsKey("BENCH_REDIS_STARTED")
                                    ? " (started by bin/bench for this run: " + env.get("BENCH_REDIS_STARTED") + ")"
                                    : ""));
            if (!persistence.contains("appendonly yes, appendfsync always")) {
                r.notes.add("Redis ran with " + persistence + ", not the production setting (appendonly yes,"
                        + " appendfsync always): admissions cost Redis less here than in production");
            }
            String apiRedis = apiEnv == null ? null : apiEnv.get("COUPON_REDIS_URL");
            if (apiRedis != null && !sameRedis(apiRedis, s.redisUrl())) {
                r.notes.add("the api uses " + apiRedis + " but this run measured the raw script and the reference on "
                        + s.redisUrl());
            }
            b.redisPid = local(s.redisUrl()) ? redis.processId() : -1;
            String load = loadAverage();
            r.setting("load average at the start (1, 5, 15 min)", load);
            double load1 = load.isEmpty() ? 0 : Double.parseDouble(load.split(" ")[0]);
            if (load1 > Runtime.getRuntime().availableProcessors()) {
                r.notes.add("the machine was busy when the run started (load average " + load + " on "
                        + Runtime.getRuntime().availableProcessors() + " cores): the figures are noise");
            }
            if (b.probe("/actuator/health") != 200) {
                log.println("bench: the api is not UP at " + s.api() + "/actuator/health (bin/up starts it)");
                return 3;
            }
            b.memory = new MemorySampler(
                    List.of(
                            new MemorySampler.App("api", apiPid, s.api()),
                            new MemorySampler.App("worker", workerPid, s.workerUrl())),
                    b.startNanos);
            b.memory.start();
            PHASES.stream().filter(step -> step.wanted(s)).forEach(this::run);
            b.memory.quiet(false);
            b.memory.close();
            for (MemorySampler.App app : b.memory.apps()) {
                r.memory.add(b.memory.peak(app.name(), "whole run", 0, b.now()));
                r.memorySeries.put(
                        app.name() + " heap used", b.memory.series(app.name(), MemorySampler.Point::heapBytes));
                r.memorySeries.put(app.name() + " RSS", b.memory.series(app.name(), MemorySampler.Point::rssBytes));
                double cpu = b.memory.cpuUsed(app.name());
                r.setting(
                        app.name() + " CPU time over the run",
                        cpu < 0 ? "not sampled" : String.format(Locale.ROOT, "%.1f s", cpu));
            }
        } catch (IOException | RuntimeException e) {
            r.notes.add("the run stopped early: " + LoadRunner.describe(e));
            log.println("bench: the run stopped early: " + LoadRunner.describe(e));
        }
        return write();
    }

    private void run(Step phase) {
        b.memory.quiet(phase.phase().quiet());
        try {
            phase.phase().run(b);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            b.r.notes.add(phase.name() + ": interrupted");
        } catch (Exception | Error e) {
            b.r.notes.add(phase.name() + " failed: " + LoadRunner.describe(e));
            log.println("bench: " + phase.name() + " failed: " + LoadRunner.describe(e));
        }
    }

    private int write() {
        Results r = b.r;
        r.totalSeconds = b.now();
        r.setting("load average at the end (1, 5, 15 min)", loadAverage());
        try {
            Files.createDirectories(s.out());
            List<String> charts = new ArrayList<>();
            try {
                charts = Charts.write(r, s.out());
            } catch (IOException | RuntimeException | Error e) {
                r.notes.add("charts not drawn: " + LoadRunner.describe(e));
            }
            Path report = s.out().resolve("report.md");
            Files.writeString(report, Report.markdown(r, charts), StandardCharsets.UTF_8);
            b.info("report: " + report);
            return 0;
        } catch (IOException e) {
            log.println("bench: cannot write the report: " + LoadRunner.describe(e));
            return 1;
        }
    }

    private void describe(Map<String, String> env, Map<String, String> apiEnv, Map<String, String> workerEnv) {
        Results r = b.r;
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
                "COUPON_OVERLOAD_ENABLED",
                "COUPON_OVERLOAD_MAX_LIMIT",
                "COUPON_HTTP_READ_TIMEOUT",
                "COUPON_HTTP_REQUEST_TIMEOUT",
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
                (s.openRate() > 0
                                ? Fmt.count(s.openRate()) + "/s"
                                : Math.round(s.openShare() * 100) + "% of the saturation phase's admissions/s")
                        + " for " + s.openDuration().toSeconds() + " s, up to " + s.openConnections() + " connections");
        r.setting(
                "rate limits (api, reference server and raw script alike)",
                "member " + b.memberPerSecond + "/s, address " + b.addressPerSecond + "/s (0: off)");
        r.setting(
                "overload",
                (s.overloadRate() > 0
                                ? Fmt.count(s.overloadRate()) + "/s"
                                : s.overloadFactor() + " × the saturation phase's admissions/s")
                        + " for " + s.overloadDuration().toSeconds() + " s, up to " + s.openConnections()
                        + " connections");
        r.setting(
                "hold",
                s.holdConnections() + " connections for " + s.holdDuration().toSeconds() + " s");
        r.setting(
                "slow clients",
                Fmt.count(s.slowConnections()) + " connections of " + s.slowMembers() + " members, first opened over "
                        + s.slowSpread().toMillis() / 1000.0 + " s; other members' admissions at "
                        + Fmt.count(s.slowRate()) + "/s for " + s.slowDuration().toSeconds() + " s alone and "
                        + s.slowDuration().toSeconds() + " s beside them");
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

    private long pid(String app) {
        try {
            return Long.parseLong(
                    Files.readString(s.runDir().resolve(app + ".pid")).strip());
        } catch (IOException | NumberFormatException e) {
            b.r.notes.add("no pid for " + app + " in " + s.runDir() + ": its RSS is not sampled");
            return -1;
        }
    }

    /** A rate limit of the api: from its environment, else this one's, else the api's default. */
    private static int rate(Map<String, String> apiEnv, Map<String, String> env, String key, int apiDefault) {
        String value = apiEnv != null && apiEnv.containsKey(key) ? apiEnv.get(key) : env.get(key);
        try {
            return value == null ? apiDefault : Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            return apiDefault;
        }
    }

    /** Whether two Redis URLs name the same server and database (ignoring a trailing slash). */
    static boolean sameRedis(String a, String b) {
        return a.replaceAll("/+$", "").equals(b.replaceAll("/+$", ""));
    }

    /** Whether a Redis URL's host is this machine, so that its process can be read in /proc. */
    static boolean local(String redisUrl) {
        String host = java.net.URI.create(redisUrl).getHost();
        return host == null
                || host.equals("127.0.0.1")
                || host.equals("localhost")
                || host.equals("::1")
                || host.equals("[::1]");
    }

    /** The COUPON_* environment a process was started with (from /proc), or null when it cannot be read. */
    private static Map<String, String> environment(long pid) {
        try {
            String raw = Files.readString(Path.of("/proc/" + pid + "/environ"), StandardCharsets.UTF_8);
            Map<String, String> env = new HashMap<>();
            for (String entry : raw.split("\0")) {
                int eq = entry.indexOf('=');
                if (eq > 0 && entry.startsWith("COUPON_")) {
                    env.put(entry.substring(0, eq), entry.substring(eq + 1));
                }
            }
            return env;
        } catch (IOException e) {
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
}
