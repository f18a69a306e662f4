package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.Flags.Option;
import com.flashcoupon.loadgen.UsageException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/** What {@code crowd} does: from flags, else environment variables, else the defaults below. */
record CrowdSettings(
        String api,
        int members,
        int coupons,
        double twice,
        int concurrency,
        int rate,
        int batchBound,
        Duration issuanceTimeout,
        Duration timeout,
        long seed,
        ProgressMode progress,
        String jwtSecret,
        String dbUrl,
        String dbUser,
        String dbPassword,
        int estimateSample,
        Duration rateChangeAfter,
        int rateChangeTo,
        String estimateCsv,
        int fairStartSeconds,
        int proofOfWorkBits,
        int viaClient,
        int stockShards) {

    static final String DEFAULT_JWT_SECRET = "flash-coupon-local-secret-do-not-use-in-production";

    static final List<Option> OPTIONS = List.of(
            new Option(
                    "via-client",
                    "CROWD_VIA_CLIENT",
                    "members who claim through the Java client library (flash-coupon-client) with live streams, besides"
                            + " the crowd, checked against MySQL (default 0)"),
            new Option(
                    "proof-of-work",
                    "CROWD_PROOF_OF_WORK",
                    "an event with a proof-of-work check of this many bits; every member solves its challenge before"
                            + " the crowd (default 0: none)"),
            new Option(
                    "stock-shards",
                    "CROWD_STOCK_SHARDS",
                    "the coupon's stock shards (stockShards, 1 to 64): its admission spread over that many Redis hash"
                            + " slots (default 1)"),
            new Option(
                    "api", "COUPON_API_URL", "base URL of the api (default http://127.0.0.1:$COUPON_API_PORT, 8080)"),
            new Option("members", "CROWD_MEMBERS", "distinct members in the crowd (default 20000)"),
            new Option("coupons", "CROWD_COUPONS", "total quantity of the coupon created (default 5000)"),
            new Option("twice", "CROWD_TWICE", "fraction of members who ask a second time (default 0.333)"),
            new Option("concurrency", "CROWD_CONCURRENCY", "requests in flight and connections (default 256)"),
            new Option("rate", "CROWD_RATE", "issueRatePerSecond of the coupon created (default 2000)"),
            new Option(
                    "batch-bound",
                    "COUPON_DRAIN_MAX_BATCH",
                    "order check: reordering allowed, the api's drain batch (default 1000)"),
            new Option("wait", "CROWD_WAIT", "how long to wait for issuance to finish (default 10m)"),
            new Option("timeout", "CROWD_TIMEOUT", "response time-out of one request (default 30s)"),
            new Option("seed", "CROWD_SEED", "seed of the shuffle (default random)"),
            new Option("progress", "CROWD_PROGRESS", "auto, bar, lines or off (default auto: bar on a terminal)"),
            new Option("jwt-secret", "COUPON_JWT_SECRET", "HS256 secret shared with the api (default: the local one)"),
            new Option("db-url", "COUPON_DB_URL", "JDBC URL (default jdbc:mysql://127.0.0.1:3306/coupon)"),
            new Option("db-user", "COUPON_DB_USER", "database user (default coupon)"),
            new Option("db-password", "COUPON_DB_PASSWORD", "database password (default coupon)"),
            new Option(
                    "estimate-sample",
                    "CROWD_ESTIMATE_SAMPLE",
                    "admitted members whose status is read every second while they wait, to score the wait estimate"
                            + " (default 400; 0: off)"),
            new Option(
                    "change-rate-after",
                    "CROWD_CHANGE_RATE_AFTER",
                    "the operator changes the rate this long after the crowd starts (default: never)"),
            new Option("change-rate-to", "CROWD_CHANGE_RATE_TO", "the rate it changes to (default half of --rate)"),
            new Option(
                    "estimate-csv",
                    "CROWD_ESTIMATE_CSV",
                    "also write every scored estimate to this CSV file (member, told at, position, estimated and"
                            + " actual wait; default: none)"),
            new Option(
                    "fair-start",
                    "CROWD_FAIR_START",
                    "seconds of a fair start: the coupon is created RANDOMIZED_START with this window, the crowd asks"
                            + " within it, the draw places its members, and the run checks the draw from its published"
                            + " seed as bin/verify-draw does (default 0: first come, first served)"));

    static CrowdSettings from(Flags flags, Map<String, String> env) {
        String port = env.getOrDefault("COUPON_API_PORT", "8080");
        String api = flags.string("api", "http://127.0.0.1:" + (port.isBlank() ? "8080" : port.strip()));
        if (!api.matches("https?://[^/]+/?")) {
            throw new UsageException(
                    "--api must be a scheme, host and port such as http://127.0.0.1:8080, was: " + api);
        }
        String secret = flags.string("jwt-secret", DEFAULT_JWT_SECRET);
        if (secret.getBytes(java.nio.charset.StandardCharsets.UTF_8).length < 32) {
            throw new UsageException("the JWT secret (COUPON_JWT_SECRET) must be at least 32 bytes");
        }
        String seed =
                flags.string("seed", Long.toString(ThreadLocalRandom.current().nextLong()));
        long parsedSeed;
        try {
            parsedSeed = Long.parseLong(seed);
        } catch (NumberFormatException e) {
            throw new UsageException("--seed must be a whole number, was: " + seed);
        }
        int fairStart = (int) flags.duration("fair-start", Duration.ZERO).toSeconds();
        if (fairStart < 0 || fairStart > 3600) {
            throw new UsageException(
                    "--fair-start must be a window of 1 to 3600 seconds (0: first come), was: " + fairStart);
        }
        return new CrowdSettings(
                api.endsWith("/") ? api.substring(0, api.length() - 1) : api,
                flags.integer("members", 20_000, 1, 10_000_000),
                flags.integer("coupons", 5_000, 1, 10_000_000),
                flags.decimal("twice", 0.333, 0, 1),
                flags.integer("concurrency", 256, 1, 100_000),
                flags.integer("rate", 2_000, 1, 100_000),
                flags.integer("batch-bound", 1_000, 0, Integer.MAX_VALUE),
                flags.duration("wait", Duration.ofMinutes(10)),
                flags.duration("timeout", Duration.ofSeconds(30)),
                parsedSeed,
                ProgressMode.parse(flags.string("progress", "auto")),
                secret,
                flags.string("db-url", "jdbc:mysql://127.0.0.1:3306/coupon"),
                flags.string("db-user", "coupon"),
                flags.string("db-password", "coupon"),
                flags.integer("estimate-sample", 400, 0, 100_000),
                flags.duration("change-rate-after", Duration.ZERO),
                flags.integer("change-rate-to", 0, 0, 100_000),
                flags.string("estimate-csv", ""),
                fairStart,
                flags.integer("proof-of-work", 0, 0, 24),
                flags.integer("via-client", 0, 0, 20_000),
                flags.integer("stock-shards", 1, 1, 64));
    }

    /** The settings worth echoing before a run; leaves out the secret and the password. */
    String describe() {
        return String.format(
                        Locale.ROOT,
                        "api %s, %,d members (%.1f%% asking twice), %,d coupons at %,d/s, concurrency %d, seed %d",
                        api,
                        members,
                        twice * 100,
                        coupons,
                        rate,
                        concurrency,
                        seed)
                + (fairStartSeconds > 0 ? ", a fair start of " + fairStartSeconds + " s" : "")
                + (proofOfWorkBits > 0 ? ", a proof of work of " + proofOfWorkBits + " bits" : "")
                + (stockShards > 1 ? ", " + stockShards + " stock shards" : "")
                + (viaClient > 0
                        ? String.format(Locale.ROOT, ", %,d more members through the Java client", viaClient)
                        : "");
    }

    @Override
    public String toString() {
        return describe();
    }
}
