package com.flashcoupon.bench;

import com.flashcoupon.loadgen.crowd.CouponAdmin;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadResult;
import com.flashcoupon.loadgen.engine.LoadRunner;
import com.flashcoupon.loadgen.engine.ProgressListener;
import com.flashcoupon.loadgen.engine.ResponseClassifier;
import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.IntFunction;

/** What the phases of one run share: the settings, the results, the minted tokens, the operator and the samplers. */
final class BenchRun {

    static final ResponseClassifier LABELS = (index, status, body) -> Labels.of(status, body);

    final BenchSettings s;
    final Results r = new Results();
    final long startNanos = System.nanoTime();
    // six base-36 characters: 36^5 … 36^6-1
    final String runId = Long.toString(ThreadLocalRandom.current().nextLong(60_466_176L, 2_176_782_336L), 36);
    final JwtMinter minter;
    private final PrintStream log;
    String[] tokens;
    CouponAdmin admin;
    LoadRunner control;
    RawRedis redis;
    MemorySampler memory;
    Map<String, String> workerEnv;
    /** The api's process (from bin/up's pid file) and Redis' (from INFO, when it runs here); -1 when unknown. */
    long apiPid = -1;

    long redisPid = -1;
    /** The api's rate limits, from its environment (the api's defaults when unset): the reference charges the same. */
    int memberPerSecond;

    int addressPerSecond;

    BenchRun(BenchSettings settings, PrintStream log) {
        this.s = settings;
        this.log = log;
        this.minter = new JwtMinter(settings.jwtSecret(), Clock.systemUTC(), Duration.ofHours(6));
    }

    /** A coupon of the run, open from now; its id. */
    long coupon(String label, long stock, int issueRatePerSecond) {
        return admin.create("bench " + runId + " " + label, stock, issueRatePerSecond);
    }

    /** Measures on a new coupon of the run (at the admission runs' rate), closed after. */
    <T> T onCoupon(String label, long stock, Function<String, T> measureOnIssuePath) {
        long coupon = coupon(label, stock, s.admissionIssueRate());
        try {
            return measureOnIssuePath.apply(issuePath(coupon));
        } finally {
            closeQuietly(coupon);
        }
    }

    /** Closed-loop admissions at {@code path} for a length of time, each with the next member's token. */
    Measured timedLoop(String label, String path, int connections, Duration length) {
        try (LoadRunner http = new LoadRunner(s.api(), connections, s.timeout())) {
            return TimedLoop.run(http, label, length, i -> post(path, i));
        }
    }

    /** {@code n} requests, {@code calls.apply(i)}, at most {@code connections} at a time, against {@code baseUrl}. */
    static LoadResult closedRun(String baseUrl, int connections, Duration timeout, int n, IntFunction<HttpCall> calls) {
        try (LoadRunner http = new LoadRunner(baseUrl, connections, timeout)) {
            return http.run(n, calls, LABELS, ProgressListener.NONE);
        }
    }

    static Measured measure(LoadRunner http, String label, int n, IntFunction<HttpCall> calls) {
        return Measured.of(label, http.concurrency(), http.run(n, calls, LABELS, ProgressListener.NONE));
    }

    void closeQuietly(long coupon) {
        try {
            admin.close(coupon);
        } catch (RuntimeException e) {
            r.notes.add("could not close coupon " + coupon + ": " + LoadRunner.describe(e));
        }
    }

    /** Marks a phase's span on the memory chart and notes both apps' peaks during it. */
    void span(String name, double from, double to) {
        r.phaseSpans.add(new String[] {name, Double.toString(from), Double.toString(to)});
        r.memory.add(memory.peak("api", name, from, to + 1));
        r.memory.add(memory.peak("worker", name, from, to + 1));
    }

    /** One GET without a token; the answer's status, or -1 when nothing answered. */
    int probe(String path) {
        try {
            return control.send(HttpCall.get(path, null))
                    .block(Duration.ofSeconds(5))
                    .status();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * Mints member tokens until there are at least {@code n}, so that a run of {@code n} requests asks with {@code n}
     * distinct members (the overload phase's size is known only once the saturation phase has measured).
     */
    void ensureTokens(int n) {
        if (tokens.length >= n) {
            return;
        }
        long mint = System.nanoTime();
        String[] more = java.util.Arrays.copyOf(tokens, n);
        for (int i = tokens.length; i < n; i++) {
            more[i] = minter.member(member(i));
        }
        info("minted %,d more member tokens in %.1f s", n - tokens.length, since(mint));
        tokens = more;
    }

    String member(int i) {
        return "b" + runId + "-" + i;
    }

    HttpCall post(String path, int i) {
        return HttpCall.post(path, tokens[i % tokens.length]);
    }

    static String issuePath(long coupon) {
        return "/api/v1/coupons/" + coupon + "/issue-requests";
    }

    double now() {
        return since(startNanos);
    }

    static double since(long nanos) {
        return (System.nanoTime() - nanos) / 1e9;
    }

    void info(String message) {
        log.printf(Locale.ROOT, "[%6.1f s] %s%n", now(), message);
    }

    void info(String format, Object... args) {
        info(String.format(Locale.ROOT, format, args));
    }

    void note(String format, Object... args) {
        r.notes.add(String.format(Locale.ROOT, format, args));
    }

    static String line(Measured m) {
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
}
