package com.flashcoupon.bench;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.UsageException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/** Every size of a run, each a flag; {@code --quick} changes the defaults so a run takes about two minutes. */
record BenchSettings(
        boolean quick,
        String api,
        String workerUrl,
        String redisUrl,
        String dbUrl,
        String dbUser,
        String dbPassword,
        String jwtSecret,
        Path script,
        Path out,
        Path runDir,
        Set<String> phases,
        Duration warmup,
        int members,
        double twice,
        int crowdStock,
        int admissionIssueRate,
        int concurrency,
        int saturationConcurrency,
        int saturationRequests,
        int loadgenRequests,
        int openRate,
        double openShare,
        Duration openDuration,
        int openConnections,
        Duration overloadDuration,
        double overloadFactor,
        int overloadRate,
        int holdConnections,
        Duration holdDuration,
        int slowConnections,
        int slowMembers,
        int slowRate,
        Duration slowDuration,
        Duration slowSpread,
        List<Integer> growthSizes,
        int growthProbes,
        int statusReads,
        int growthConcurrency,
        int issueCoupons,
        int insertBatch,
        Duration issueTimeout,
        Duration timeout,
        long seed,
        int drawEntrants,
        int drawPlaces,
        int stampedeMembers) {

    static final List<String> ALL_PHASES = List.of(
            "warmup",
            "loadgen",
            "crowd",
            "saturation",
            "open",
            "open-reference",
            "overload",
            "hold",
            "slow-clients",
            "growth",
            "issuance",
            "estimates",
            "draw",
            "stampede");

    static final List<Flags.Option> OPTIONS = List.of(
            new Flags.Option("api", "COUPON_API_URL", "the api's base URL (default http://127.0.0.1:8080)"),
            new Flags.Option("worker", "COUPON_WORKER_URL", "the worker's base URL (default http://127.0.0.1:8081)"),
            new Flags.Option("redis", "COUPON_REDIS_URL", "Redis URL (default redis://127.0.0.1:6379)"),
            new Flags.Option("db-url", "COUPON_DB_URL", "JDBC URL of the database"),
            new Flags.Option("db-user", "COUPON_DB_USER", "its user"),
            new Flags.Option("db-password", "COUPON_DB_PASSWORD", "its password"),
            new Flags.Option("jwt-secret", "COUPON_JWT_SECRET", "HS256 secret the api verifies tokens with"),
            new Flags.Option("script", null, "the admission script (default api/src/main/resources/scripts/admit.lua)"),
            new Flags.Option("out", null, "folder for the report and charts (default bench-results/<timestamp>)"),
            new Flags.Option("run-dir", null, "bin/up's .run folder, for the apps' pids (default .run)"),
            new Flags.Option("phases", null, "comma-separated subset of " + String.join(",", ALL_PHASES)),
            new Flags.Option("warmup", null, "warm-up length before any figure (120s; quick 20s)"),
            new Flags.Option("members", null, "crowd: distinct members (200000; quick 20000)"),
            new Flags.Option("twice", null, "crowd: share of members asking twice (0.333)"),
            new Flags.Option("crowd-stock", null, "crowd: coupons on offer (half the members)"),
            new Flags.Option(
                    "admission-issue-rate",
                    null,
                    "issue rate of the admission runs' coupons (1: drain paused, admission measured alone)"),
            new Flags.Option("concurrency", null, "crowd and raw ceiling: connections / in flight (1000)"),
            new Flags.Option("saturation-concurrency", null, "closed-loop saturation: connections (256)"),
            new Flags.Option(
                    "saturation-requests", null, "saturation: requests, distinct members (200000; quick 30000)"),
            new Flags.Option(
                    "loadgen-requests", null, "the client's own ceiling: requests per target (200000; quick 30000)"),
            new Flags.Option(
                    "open-rate",
                    null,
                    "open model: offered admissions per second (0: --open-share of saturation's admissions/s)"),
            new Flags.Option(
                    "open-share", null, "open model: offered rate as a share of saturation's admissions/s (0.7)"),
            new Flags.Option("open-duration", null, "open model: length (60s; quick 10s)"),
            new Flags.Option("open-connections", null, "open model: connections at most (1000)"),
            new Flags.Option("overload-duration", null, "overload: length (60s; quick 10s)"),
            new Flags.Option(
                    "overload-factor", null, "overload: offered rate as a multiple of saturation's admissions/s (2)"),
            new Flags.Option(
                    "overload-rate",
                    null,
                    "overload: offered admissions per second, instead of the factor times saturation (0: measured)"),
            new Flags.Option("hold-connections", null, "held connections (1000)"),
            new Flags.Option("hold-duration", null, "how long they are held (60s; quick 10s)"),
            new Flags.Option("slow-connections", null, "slow clients: connections held with a body never sent (1000)"),
            new Flags.Option("slow-members", null, "slow clients: members holding them (10)"),
            new Flags.Option("slow-rate", null, "slow clients: other members' admissions per second (300)"),
            new Flags.Option("slow-duration", null, "slow clients: each of the two runs (20s; quick 10s)"),
            new Flags.Option(
                    "slow-spread", null, "slow clients: their first connections spread over this (5s; 0s: at once)"),
            new Flags.Option("growth-sizes", null, "queue sizes (1000,100000,1000000; quick 1000,10000,100000)"),
            new Flags.Option("growth-probes", null, "admissions measured at each size (20000; quick 5000)"),
            new Flags.Option("status-reads", null, "status reads at each size (50000; quick 10000)"),
            new Flags.Option("growth-concurrency", null, "connections for the growth probes (256)"),
            new Flags.Option("issue-coupons", null, "issuance: coupons queued then issued (1000000; quick 100000)"),
            new Flags.Option("insert-batch", null, "raw MySQL: rows per INSERT IGNORE and commit (1000)"),
            new Flags.Option("issue-timeout", null, "issuance: longest wait for the last wallet (15m)"),
            new Flags.Option("timeout", null, "per-request response time-out (30s)"),
            new Flags.Option("seed", null, "random seed of the crowd's order (random)"),
            new Flags.Option("draw-entrants", null, "draw: members in a fair start's window (1000000; quick 100000)"),
            new Flags.Option(
                    "stampede-members",
                    null,
                    "stampede: clients that meet an overload in the same second, naive then the Java client's (2000;"
                            + " quick 500)"),
            new Flags.Option("draw-places", null, "draw: coupons of that event, the places (100000; quick 10000)"));

    static BenchSettings from(boolean quick, Flags f, Map<String, String> env, Path root) {
        String apiPort = env.getOrDefault("COUPON_API_PORT", "8080");
        String workerPort = env.getOrDefault("COUPON_WORKER_PORT", "8081");
        int members = f.integer("members", quick ? 20_000 : 200_000, 1, 5_000_000);
        List<Integer> sizes = new ArrayList<>();
        for (String s : f.string("growth-sizes", quick ? "1000,10000,100000" : "1000,100000,1000000")
                .split(",")) {
            try {
                sizes.add(Integer.parseInt(s.strip().replace("_", "")));
            } catch (NumberFormatException e) {
                throw new UsageException("--growth-sizes must be whole numbers separated by commas, was: " + s);
            }
        }
        sizes.sort(Integer::compare);
        Set<String> phases = new LinkedHashSet<>();
        for (String p : f.string("phases", String.join(",", ALL_PHASES)).split(",")) {
            String phase = p.strip().toLowerCase(Locale.ROOT);
            if (!ALL_PHASES.contains(phase)) {
                throw new UsageException("unknown phase " + phase + " (phases: " + String.join(",", ALL_PHASES) + ")");
            }
            phases.add(phase);
        }
        return new BenchSettings(
                quick,
                f.string("api", "http://127.0.0.1:" + apiPort),
                f.string("worker", "http://127.0.0.1:" + workerPort),
                f.string("redis", "redis://127.0.0.1:6379"),
                f.string("db-url", "jdbc:mysql://127.0.0.1:3306/coupon"),
                f.string("db-user", "coupon"),
                f.string("db-password", "coupon"),
                f.string("jwt-secret", "flash-coupon-local-secret-do-not-use-in-production"),
                Path.of(f.string(
                        "script",
                        root.resolve("api/src/main/resources/scripts/admit.lua").toString())),
                f.find("out")
                        .map(Path::of)
                        .orElseGet(() -> root.resolve("bench-results")
                                .resolve(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")
                                        .format(LocalDateTime.now(ZoneOffset.UTC)))),
                Path.of(f.string("run-dir", root.resolve(".run").toString())),
                phases,
                f.duration("warmup", Duration.ofSeconds(quick ? 20 : 120)),
                members,
                f.decimal("twice", 0.333, 0, 1),
                f.integer("crowd-stock", Math.max(1, members / 2), 1, 10_000_000),
                f.integer("admission-issue-rate", 1, 1, 100_000),
                f.integer("concurrency", 1000, 1, 20_000),
                f.integer("saturation-concurrency", 256, 1, 20_000),
                f.integer("saturation-requests", quick ? 30_000 : 200_000, 1, 10_000_000),
                f.integer("loadgen-requests", quick ? 30_000 : 200_000, 1, 10_000_000),
                f.integer("open-rate", 0, 0, 1_000_000),
                f.decimal("open-share", 0.7, 0.01, 10),
                f.duration("open-duration", Duration.ofSeconds(quick ? 10 : 60)),
                f.integer("open-connections", 1000, 1, 20_000),
                f.duration("overload-duration", Duration.ofSeconds(quick ? 10 : 60)),
                f.decimal("overload-factor", 2, 0.1, 100),
                f.integer("overload-rate", 0, 0, 1_000_000),
                f.integer("hold-connections", 1000, 1, 20_000),
                f.duration("hold-duration", Duration.ofSeconds(quick ? 10 : 60)),
                f.integer("slow-connections", 1000, 1, 20_000),
                f.integer("slow-members", 10, 1, 10_000),
                f.integer("slow-rate", 300, 1, 1_000_000),
                f.duration("slow-duration", Duration.ofSeconds(quick ? 10 : 20)),
                f.duration("slow-spread", Duration.ofSeconds(5)),
                List.copyOf(sizes),
                f.integer("growth-probes", quick ? 5_000 : 20_000, 1, 1_000_000),
                f.integer("status-reads", quick ? 10_000 : 50_000, 1, 10_000_000),
                f.integer("growth-concurrency", 256, 1, 20_000),
                f.integer("issue-coupons", quick ? 100_000 : 1_000_000, 1, 9_000_000),
                f.integer("insert-batch", 1000, 1, 10_000),
                f.duration("issue-timeout", Duration.ofMinutes(15)),
                f.duration("timeout", Duration.ofSeconds(30)),
                f.find("seed").map(Long::parseLong).orElseGet(() -> new java.util.Random().nextLong()),
                f.integer("draw-entrants", quick ? 100_000 : 1_000_000, 1, 10_000_000),
                f.integer("draw-places", quick ? 10_000 : 100_000, 1, 10_000_000),
                f.integer("stampede-members", quick ? 500 : 2_000, 1, 20_000));
    }

    /** Requests of the open model at {@code --open-rate}. */
    int openTotal() {
        return openTotal(openRate);
    }

    /** Requests of an open model at {@code rate} for {@code --open-duration}. */
    int openTotal(int rate) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, rate * (openDuration.toMillis() / 1000.0)));
    }

    /** Distinct member tokens minted up front, enough that no measured run needs one twice (the warm-up cycles). */
    int tokenPool() {
        int pool = members;
        pool = Math.max(pool, saturationRequests);
        if ((phases.contains("open") || phases.contains("open-reference")) && openRate > 0) {
            pool = Math.max(pool, openTotal());
        }
        if (phases.contains("growth")) {
            pool = Math.max(pool, growthProbes * growthSizes.size());
        }
        return pool;
    }

    boolean runs(String phase) {
        return phases.contains(phase);
    }
}
