package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.crowd.CouponAdmin.ApiException;
import com.flashcoupon.loadgen.crowd.CouponAdmin.CouponStats;
import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadResult;
import com.flashcoupon.loadgen.engine.LoadRunner;
import com.flashcoupon.loadgen.engine.ProgressListener;
import com.flashcoupon.loadgen.engine.ResponseClassifier;
import com.flashcoupon.loadgen.jwt.JwtMinter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.IntStream;
import tools.jackson.databind.json.JsonMapper;

/**
 * {@code crowd}: creates a coupon, sends a flash crowd at it, waits for issuance, prints a summary and checks
 * docs/architecture.md's invariants in MySQL. Exit status 0 when every invariant held, 1 when one did not (or could not be
 * checked), 3 when the api could not be driven at all.
 */
public final class CrowdCommand {

    public static final int PASSED = 0;
    public static final int FAILED = 1;
    public static final int BROKEN = 3;

    private final PrintStream out;
    private final PrintStream err;
    private final JsonMapper json = JsonMapper.builder().build();

    public CrowdCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public static String usage() {
        return "crowd: create a coupon, send a flash crowd of members at it, wait for issuance, check the invariants\n"
                + Flags.usage(CrowdSettings.OPTIONS);
    }

    public static List<Flags.Option> options() {
        return CrowdSettings.OPTIONS;
    }

    public int run(Flags flags, Map<String, String> env) throws InterruptedException {
        CrowdSettings settings = CrowdSettings.from(flags, env);
        // six base-36 characters: 36^5 … 36^6-1
        String runId = Long.toString(ThreadLocalRandom.current().nextLong(60_466_176L, 2_176_782_336L), 36);
        err.println("crowd " + runId + ": " + settings.describe());

        long mintStart = System.nanoTime();
        JwtMinter minter = new JwtMinter(
                settings.jwtSecret(), Clock.systemUTC(), Duration.ofHours(1).plus(settings.issuanceTimeout()));
        String[] memberIds = IntStream.range(0, settings.members())
                .mapToObj(m -> "demo-" + runId + "-" + (m + 1))
                .toArray(String[]::new);
        String[] tokens = new String[memberIds.length];
        for (int m = 0; m < memberIds.length; m++) {
            tokens[m] = minter.member(memberIds[m]);
        }
        String operatorToken = minter.operator("demo-" + runId + "-operator");
        CrowdPlan plan = CrowdPlan.shuffled(settings.members(), settings.twice(), new Random(settings.seed()));
        err.printf(
                Locale.ROOT,
                "minted %,d member tokens in %.2f s; %,d requests planned%n",
                tokens.length,
                (System.nanoTime() - mintStart) / 1e9,
                plan.size());

        try (LoadRunner http = new LoadRunner(settings.api(), settings.concurrency(), settings.timeout())) {
            CouponAdmin admin = new CouponAdmin(http, json, operatorToken);
            long couponId;
            try {
                couponId = admin.create(
                        "Flash crowd " + runId,
                        settings.coupons(),
                        settings.rate(),
                        settings.fairStartSeconds(),
                        settings.proofOfWorkBits(),
                        settings.stockShards());
            } catch (ApiException e) {
                err.println("cannot create the coupon: " + e.getMessage());
                if (!e.getMessage().contains("expected 201")) {
                    // no answer at all; an answer (a 400 for settings this deployment refuses) says what is wrong
                    err.println("is the api up at " + settings.api() + "? (bin/up starts it)");
                }
                return BROKEN;
            }
            err.printf(
                    Locale.ROOT,
                    "created coupon %d (%,d coupons, %,d/s)%n",
                    couponId,
                    settings.coupons(),
                    settings.rate());

            String issuePath = "/api/v1/coupons/" + couponId + "/issue-requests";
            // an event with a proof of work (issue 26): each member solves its challenge first, as an app would
            String[] proofs = settings.proofOfWorkBits() > 0
                    ? ProofsOfWork.solveAll(http, json, couponId, tokens, err)
                    : new String[tokens.length];
            WaitEstimates estimates = new WaitEstimates(json);
            CrowdAnswers answers = new CrowdAnswers(plan, json, estimates);
            AtomicLong rateChangedAt = new AtomicLong();
            Thread rateChange = changeRateLater(settings, admin, couponId, rateChangedAt);
            ViaClient via = settings.viaClient() > 0
                    ? new ViaClient(runId, settings.viaClient(), minter, settings.api())
                    : null;
            if (via != null) {
                via.start(couponId);
            }
            // the status reads start with the crowd: a crowd slower than the drain has its members issued while it
            // still runs, and reads begun after it found nobody waiting (issue 32); on connections of their own, or
            // they would queue behind the crowd's
            AtomicBoolean issuing = new AtomicBoolean(true);
            LoadRunner readsHttp = new LoadRunner(settings.api(), STATUS_READ_CONCURRENCY, settings.timeout());
            Thread reads = readStatuses(settings, readsHttp, issuePath, answers, estimates, tokens, issuing);
            LoadResult crowd = http.run(
                    plan.size(),
                    i -> HttpCall.post(issuePath, tokens[plan.memberAt(i)]).withProof(proofs[plan.memberAt(i)]),
                    answers,
                    new ProgressPrinter(settings.progress(), err, "crowd    "));

            String askedAgain = askAgainAfter503(http, issuePath, answers, tokens, proofs, plan.members());
            FairStart.Drawn drawn = null;
            if (settings.fairStartSeconds() > 0) {
                drawn = FairStart.await(
                        admin,
                        http,
                        json,
                        operatorToken,
                        couponId,
                        Duration.ofSeconds(settings.fairStartSeconds()).plus(settings.issuanceTimeout()),
                        err);
            }

            IssuanceWait.Result waited = new IssuanceWait(() -> admin.stats(couponId), settings.progress(), err)
                    .await(settings.issuanceTimeout());
            issuing.set(false);
            reads.join();
            readsHttp.close();
            if (via != null) {
                // the library's members hear their outcome on their streams within moments of issuance's end
                via.await(Duration.ofSeconds(60));
            }
            rateChange.interrupt();
            rateChange.join();

            List<String> notes = new ArrayList<>();
            if (askedAgain != null) {
                notes.add(askedAgain);
            }
            if (answers.firstUnexpected() != null) {
                notes.add("first unexpected answer: " + answers.firstUnexpected());
            }
            if (crowd.firstError() != null) {
                notes.add("first request without an answer: " + crowd.firstError());
            }
            if (waited.lastError() != null) {
                notes.add("reading the coupon's counters failed: " + waited.lastError());
            }
            positions(answers, plan.members(), notes);
            if (rateChangedAt.get() > 0) {
                notes.add(String.format(
                        Locale.ROOT,
                        "the operator changed the rate from %,d/s to %,d/s %.1f s after the crowd started",
                        settings.rate(),
                        rateChangeTo(settings),
                        settings.rateChangeAfter().toMillis() / 1000.0));
            }

            // first come: told a place (202, or 200 asked before); a fair start: placed by the draw, or admitted with
            // a position after its window
            Set<String> placed = drawn == null ? new HashSet<>() : drawn.placed();
            if (settings.fairStartSeconds() > 0 && drawn == null) {
                notes.add("the draw was not made within the wait: its members are not checked");
            }
            Set<String> unanswered = new HashSet<>();
            long acceptedTwice = 0;
            for (int m = 0; m < plan.members(); m++) {
                boolean told = settings.fairStartSeconds() > 0
                        ? answers.position(m) != CrowdAnswers.NO_POSITION
                        : answers.holdsPlace(m);
                if (told) {
                    placed.add(memberIds[m]);
                } else if (answers.unanswered(m)) {
                    unanswered.add(memberIds[m]);
                }
                if (answers.acceptedCount(m) > 1) {
                    acceptedTwice++;
                }
            }

            if (via != null && settings.fairStartSeconds() == 0) {
                placed.addAll(via.placed());
                unanswered.addAll(via.unanswered());
            }
            WalletSnapshot db = null;
            try {
                db = WalletSnapshot.load(settings.dbUrl(), settings.dbUser(), settings.dbPassword(), couponId);
            } catch (SQLException e) {
                notes.add("invariants not checked: cannot read " + settings.dbUrl() + ": "
                        + e.getMessage().lines().findFirst().orElse(""));
            }
            if (db != null) {
                notes.addAll(estimateReport(settings, estimates, db, memberIds, rateChangedAt.get()));
            }
            List<Check> checks = new ArrayList<>();
            CrowdReport.Issuance issuance = issuance(waited, answers.firstAccepted(), db);
            if (db != null) {
                Set<String> failed = db.failures().keySet();
                long failedTold = toldFailed(http, issuePath, failed, placed, memberIds, tokens, notes)
                        + (via != null && settings.fairStartSeconds() == 0 ? via.toldFailed(failed) : 0);
                checks.add(Invariants.walletsWithinStock(
                        db.walletMembers().size(),
                        db.totalQuantity(),
                        placed.size(),
                        failed.stream().filter(placed::contains).count(),
                        unanswered.size()));
                long admitted = Math.max(placed.size(), issuance.admitted());
                if (plan.members() > db.totalQuantity() && admitted < db.totalQuantity()) {
                    notes.add(String.format(
                            Locale.ROOT,
                            "the crowd outnumbered the stock, yet only %,d of %,d coupons were admitted",
                            admitted,
                            db.totalQuantity()));
                }
                checks.add(Invariants.oneWalletPerMember(db.membersWithSeveralWallets(), acceptedTwice));
                checks.add(Invariants.everyAdmissionEnds(placed, db.walletMembers(), failed, failedTold));
                checks.add(Invariants.nothingWithoutAdmission(placed, db.walletMembers(), failed, unanswered));
                checks.add(Invariants.issuanceFollowsAdmission(db.requestSeqs(), settings.batchBound()));
                if (via != null) {
                    checks.add(via.check(new HashSet<>(db.walletMembers())));
                }
                if (drawn != null) {
                    checks.add(FairStart.verified(drawn, db));
                    notes.add(String.format(
                            Locale.ROOT,
                            "a fair start: %,d members entered its window, the draw placed %,d; check it again with"
                                    + " bin/verify-draw %d",
                            drawn.published().entrants(),
                            drawn.published().placed(),
                            couponId));
                }
            }
            CrowdReport report = new CrowdReport(
                    runId,
                    couponId,
                    settings.coupons(),
                    settings.rate(),
                    plan.members(),
                    plan.askingTwice(),
                    settings.concurrency(),
                    crowd,
                    issuance,
                    checks,
                    notes);
            if (via != null) {
                via.close();
            }
            out.print(Summary.format(report));
            out.flush();
            return report.passed() ? PASSED : FAILED;
        }
    }

    /** The estimates' scores; every scored estimate also in {@code --estimate-csv} when given. */
    private static List<String> estimateReport(
            CrowdSettings settings, WaitEstimates estimates, WalletSnapshot db, String[] memberIds, long changedAt) {
        if (settings.estimateCsv().isEmpty()) {
            return estimates.report(db.issuedAt(), memberIds, changedAt);
        }
        try (var out =
                new PrintWriter(Files.newBufferedWriter(Path.of(settings.estimateCsv()), StandardCharsets.UTF_8))) {
            List<String> lines = new ArrayList<>(estimates.report(db.issuedAt(), memberIds, changedAt, out::println));
            lines.add("every scored estimate in " + settings.estimateCsv());
            return lines;
        } catch (java.io.IOException e) {
            throw new UncheckedIOException("cannot write " + settings.estimateCsv(), e);
        }
    }

    /**
     * The time from the first 202 to the last wallet row: from the wallet rows' {@code issued_at} (UTC) when they look
     * sane, else from when the poll saw issuance finished.
     */
    private static CrowdReport.Issuance issuance(IssuanceWait.Result waited, Instant firstAccepted, WalletSnapshot db) {
        CouponStats stats = waited.last();
        long admitted = stats == null ? 0 : stats.admitted();
        long wallets = db != null ? db.walletMembers().size() : stats == null ? 0 : stats.issued();
        long failed = db != null ? db.failures().size() : stats == null ? 0 : stats.failed();
        Duration took = null;
        String how = "unknown";
        if (firstAccepted != null) {
            Duration polled = Duration.between(firstAccepted, waited.at());
            if (db != null && db.lastIssuedAt() != null) {
                Duration fromRows =
                        Duration.between(firstAccepted, db.lastIssuedAt().toInstant(ZoneOffset.UTC));
                if (!fromRows.isNegative() && fromRows.compareTo(polled.plusSeconds(5)) <= 0) {
                    took = fromRows;
                    how = "wallet issued_at";
                }
            }
            if (took == null && waited.drained()) {
                took = polled;
                how = "as polled, within 250 ms";
            }
        }
        return new CrowdReport.Issuance(waited.drained(), admitted, wallets, failed, took, how);
    }

    private static int rateChangeTo(CrowdSettings settings) {
        return settings.rateChangeTo() > 0 ? settings.rateChangeTo() : Math.max(1, settings.rate() / 2);
    }

    /** The operator's rate change mid-way (--change-rate-after), on a thread of its own; records when it was made. */
    private Thread changeRateLater(CrowdSettings settings, CouponAdmin admin, long couponId, AtomicLong changedAt) {
        return Thread.ofVirtual().start(() -> {
            if (settings.rateChangeAfter().isZero()) {
                return;
            }
            try {
                Thread.sleep(settings.rateChangeAfter());
                admin.patchRate(couponId, rateChangeTo(settings));
                changedAt.set(System.currentTimeMillis());
            } catch (InterruptedException e) {
                // issuance ended first
            } catch (RuntimeException e) {
                err.println("the rate change failed: " + e.getMessage());
            }
        });
    }

    /** Connections of the status reads that score the wait estimates. */
    static final int STATUS_READ_CONCURRENCY = 32;

    /**
     * From the crowd's start until issuance ends: every second, the status of a sample of the admitted members who
     * still wait (every k-th 202 as the answers arrive, k spreading {@code --estimate-sample} over the stock), so that
     * each estimate they are told can be scored against their wallet.
     */
    private static Thread readStatuses(
            CrowdSettings settings,
            LoadRunner http,
            String issuePath,
            CrowdAnswers answers,
            WaitEstimates estimates,
            String[] tokens,
            AtomicBoolean issuing) {
        int sample = settings.estimateSample();
        int every = sample <= 0 ? 0 : Math.max(1, (int) Math.ceil((double) settings.coupons() / sample));
        Set<Integer> waiting = ConcurrentHashMap.newKeySet();
        return Thread.ofVirtual().start(() -> {
            int admitted = 0;
            int taken = 0;
            while (every > 0 && issuing.get()) {
                long round = System.nanoTime();
                for (Integer m = answers.admissions().poll();
                        m != null;
                        m = answers.admissions().poll()) {
                    if (admitted++ % every == 0 && taken < sample) {
                        taken++;
                        waiting.add(m);
                    }
                }
                int[] members = waiting.stream().mapToInt(Integer::intValue).toArray();
                if (members.length > 0) {
                    http.run(
                            members.length,
                            i -> HttpCall.get(issuePath + "/me", tokens[members[i]]),
                            statusRead(members, estimates, waiting),
                            ProgressListener.NONE);
                }
                long rest = 1_000 - (System.nanoTime() - round) / 1_000_000;
                if (rest > 0) {
                    try {
                        Thread.sleep(rest);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        });
    }

    /** One round's status reads: each estimate recorded with when it was asked and answered; the decided dropped. */
    private static ResponseClassifier statusRead(int[] members, WaitEstimates estimates, Set<Integer> waiting) {
        return new ResponseClassifier() {
            @Override
            public String classify(int index, int code, String body) {
                return classify(index, code, body, 0);
            }

            @Override
            public String classify(int index, int code, String body, long latencyNanos) {
                long now = System.currentTimeMillis();
                if (code == 200 && !estimates.told(members[index], body, false, now - latencyNanos / 1_000_000, now)) {
                    waiting.remove(members[index]);
                }
                return Integer.toString(code);
            }
        };
    }

    /** Asks each admitted member with a FAILED result for their status; counts those told FAILED. */
    private long toldFailed(
            LoadRunner http,
            String issuePath,
            Set<String> failed,
            Set<String> placed,
            String[] memberIds,
            String[] tokens,
            List<String> notes) {
        int[] members = IntStream.range(0, memberIds.length)
                .filter(m -> failed.contains(memberIds[m]) && placed.contains(memberIds[m]))
                .toArray();
        if (members.length == 0) {
            return 0;
        }
        ResponseClassifier status = (index, code, body) -> code + " " + JsonBodies.text(json, body, "status");
        LoadResult asked = http.run(
                members.length,
                i -> HttpCall.get(issuePath + "/me", tokens[members[i]]),
                status,
                ProgressListener.NONE);
        if (asked.count("200 FAILED") != members.length) {
            notes.add("status of FAILED members: " + asked.outcomes());
        }
        return asked.count("200 FAILED");
    }

    private static void positions(CrowdAnswers answers, int members, List<String> notes) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int m = 0; m < members; m++) {
            long position = answers.position(m);
            if (position != CrowdAnswers.NO_POSITION) {
                min = Math.min(min, position);
                max = Math.max(max, position);
            }
        }
        if (min <= max) {
            notes.add(String.format(Locale.ROOT, "positions answered with 202: %,d … %,d", min, max));
        }
    }

    /**
     * Members answered 503 and told of no place ask again, as the contract tells them to ("not confirmed": an
     * admission whose Redis reply was lost, or that did not reach a replica in time, may stand), once a second for up
     * to ten rounds, until each hears 200 or 202 (they hold a place), or 409 (they do not). What they hear counts as
     * the api's answer to them for the invariants. Null when nobody was answered 503.
     */
    private static String askAgainAfter503(
            LoadRunner http, String issuePath, CrowdAnswers answers, String[] tokens, String[] proofs, int members) {
        List<Integer> waiting = new ArrayList<>();
        for (int m = 0; m < members; m++) {
            if (answers.toldUnavailable(m)) {
                waiting.add(m);
            }
        }
        if (waiting.isEmpty()) {
            return null;
        }
        int asked = waiting.size();
        Set<Integer> decided = ConcurrentHashMap.newKeySet();
        for (int round = 0; round < 10 && !waiting.isEmpty(); round++) {
            try {
                Thread.sleep(1_000); // Retry-After
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            List<Integer> now = List.copyOf(waiting);
            http.run(
                    now.size(),
                    i -> HttpCall.post(issuePath, tokens[now.get(i)]).withProof(proofs[now.get(i)]),
                    (i, status, body) -> {
                        if (status != 503) {
                            decided.add(now.get(i));
                        }
                        return answers.classifyMember(now.get(i), status, body);
                    },
                    ProgressListener.NONE);
            waiting.removeIf(decided::contains);
        }
        long placed = 0;
        for (int m = 0; m < members; m++) {
            if (answers.toldUnavailable(m) || !decided.contains(m)) {
                continue;
            }
            if (answers.holdsPlace(m)) {
                placed++;
            }
        }
        return String.format(
                Locale.ROOT,
                "%,d members answered 503 asked again: %,d hold a place (200 or 202), %,d were refused, %,d still 503",
                asked,
                placed,
                asked - placed - waiting.size(),
                waiting.size());
    }
}
