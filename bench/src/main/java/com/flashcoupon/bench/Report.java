package com.flashcoupon.bench;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;

/** The Markdown report of one run: figures, the ceilings measured in the same run, ratios, and targets (reported). */
final class Report {

    /** Targets of issues 4 and 12 on a 2-core machine. */
    static final double SATURATION_TARGET = 10_000;

    static final double SATURATION_STRETCH = 12_000;
    /** Issue 12: the api's admissions/s against the reference server's, in the same run. */
    static final double REFERENCE_SHARE = 0.8;
    /** Issue 12: CPU of the api process per admission over the saturation run. */
    static final double CPU_MICROS = 130;

    static final double OPEN_P99_MS = 25;
    static final double OPEN_P999_MS = 100;
    static final double ISSUANCE_SHARE = 0.40;
    static final double GROWTH_FACTOR = 1.5;
    /** Issue 11: at twice the saturation rate, the p99 of all answers. */
    static final double OVERLOAD_P99_MS = 100;

    private final StringBuilder md = new StringBuilder();

    private Report() {}

    static String markdown(Results r, List<String> charts) {
        return new Report().write(r, charts);
    }

    private String write(Results r, List<String> charts) {
        line("# flash-coupon benchmark");
        line();
        line("Started "
                + DateTimeFormatter.ISO_LOCAL_DATE_TIME
                        .format(r.startedAt.atOffset(ZoneOffset.UTC))
                        .substring(0, 19) + " UTC, took " + Fmt.seconds(r.totalSeconds)
                + ". Figures are what this run saw on "
                + "this machine; every ceiling was measured in the same run. Targets are reported, never asserted.");
        line();
        table(
                List.of("setting", "value"),
                r.settings.stream().map(s -> List.of(s.name(), s.value())).toList());
        targets(r);
        admission(r);
        overload(r);
        slowClients(r);
        loadgen(r);
        growth(r);
        issuance(r);
        estimates(r);
        draw(r);
        StampedePhase.report(r.stampede, this::line);
        memory(r);
        if (!charts.isEmpty()) {
            line("## Charts");
            line();
            for (String chart : charts) {
                line("![" + chart.replace(".png", "") + "](" + chart + ")");
                line();
            }
        }
        if (!r.notes.isEmpty()) {
            line("## Notes");
            line();
            r.notes.forEach(n -> line("- " + n));
            line();
        }
        return md.toString();
    }

    private void draw(Results r) {
        Results.Draw d = r.draw;
        if (d == null) {
            return;
        }
        line("## A fair start's draw");
        line();
        line("Coupon " + d.couponId() + ": " + Fmt.count(d.entrants()) + " entrants in the window (put into the draw's"
                + " sorted set directly, in " + Fmt.seconds(d.fillSeconds()) + "), " + Fmt.count(d.places())
                + " places. The window was ended, then the api's draw job made the draw (read the entrants, computed"
                + " every ticket, wrote the placed members into the queue) and recorded it in MySQL (every entrant's"
                + " place, then the seed). Entrants read their status meanwhile (64 connections, a closed loop).");
        line();
        table(
                List.of("after the window ended", "seconds"),
                List.of(
                        List.of("the draw made: members know their outcome", Fmt.seconds(d.madeSeconds())),
                        List.of(
                                "the draw recorded in MySQL: the seed published, bin/verify-draw can run",
                                Fmt.seconds(d.recordedSeconds())),
                        List.of("the admin view's draw state at the end", d.finalState())));
        Measured reads = d.statusReads();
        if (reads != null) {
            line("Status reads while the draw was made: " + BenchRun.line(reads) + ".");
            line();
        }
    }

    private void estimates(Results r) {
        if (r.estimates.isEmpty()) {
            return;
        }
        line("## Wait estimates");
        line();
        line(
                "`|estimated - actual| / actual` of every `estimatedWaitSeconds` (and the unrounded `estimatedWaitMillis`) told "
                        + "at admission and at the status reads of 400 waiting members, against when each wallet was written; "
                        + "2,000 members, 2,000 coupons at 100/s. Target: p90 at most 10% at a steady rate, and within 5 s of a "
                        + "rate change.");
        line();
        r.estimates.forEach(this::line);
        line();
    }

    private void targets(Results r) {
        line("## Targets");
        line();
        List<List<String>> rows = new java.util.ArrayList<>();
        if (r.saturation != null) {
            double api = OverloadPhase.admissionsPerSecond(r.saturation);
            String at = "saturation, " + r.saturation.concurrency() + " connections, admissions/s";
            rows.add(List.of(at, "≥ 10,000/s", Fmt.perSecond(api), Fmt.atLeast(api, SATURATION_TARGET)));
            rows.add(List.of(at + ", stretch", "≥ 12,000/s", Fmt.perSecond(api), Fmt.atLeast(api, SATURATION_STRETCH)));
            if (r.reference != null) {
                double reference = OverloadPhase.admissionsPerSecond(r.reference);
                rows.add(List.of(
                        "api / reference server, same run",
                        "≥ 0.8",
                        Fmt.ratio(api, reference) + " (" + Fmt.perSecond(api) + " / " + Fmt.perSecond(reference) + ")",
                        reference > 0 ? Fmt.atLeast(api / reference, REFERENCE_SHARE) : "n/a"));
            }
            rows.add(List.of(
                    "api CPU per admission (utime + stime over the saturation run)",
                    "≤ 130 µs",
                    Fmt.micros(r.apiCpuMicrosPerAdmission),
                    r.apiCpuMicrosPerAdmission < 0 ? "n/a" : Fmt.atMost(r.apiCpuMicrosPerAdmission, CPU_MICROS)));
        }
        if (r.open != null) {
            Measured m = r.open.measured();
            String at = "open model at " + Fmt.perSecond(r.open.ratePerSecond())
                    + (r.openShare > 0 ? " (" + Math.round(r.openShare * 100) + "% of saturation)" : "");
            rows.add(List.of(at + ", p99", "≤ 25 ms", Fmt.ms(m.millis(99)), Fmt.atMost(m.millis(99), OPEN_P99_MS)));
            rows.add(List.of(
                    at + ", p99.9", "≤ 100 ms", Fmt.ms(m.millis(99.9)), Fmt.atMost(m.millis(99.9), OPEN_P999_MS)));
        }
        if (r.openReference != null) {
            Measured m = r.openReference.measured();
            String at = "reference server, the same open model at " + Fmt.perSecond(r.openReference.ratePerSecond());
            rows.add(List.of(at + ", p99", "information", Fmt.ms(m.millis(99)), "–"));
            rows.add(List.of(at + ", p99.9", "information", Fmt.ms(m.millis(99.9)), "–"));
        }
        if (r.overload != null) {
            Measured m = r.overload.measured();
            String at = "overload at " + Fmt.perSecond(r.overload.ratePerSecond());
            long unanswered = m.count(Measured.NO_ANSWER);
            rows.add(List.of(
                    at + ", every request answered",
                    "0 connection errors or time-outs",
                    Fmt.count(unanswered) + " of " + Fmt.count(m.total()),
                    unanswered == 0 ? "met" : "**missed**"));
            rows.add(List.of(
                    at + ", p99 of all answers",
                    "≤ " + Fmt.ms(OVERLOAD_P99_MS),
                    Fmt.ms(m.millis(99)),
                    Fmt.atMost(m.millis(99), OVERLOAD_P99_MS)));
            if (r.saturation != null) {
                double saturation = OverloadPhase.saturationAdmissions(r);
                rows.add(List.of(
                        at + ", admissions/s",
                        "≥ saturation's (" + Fmt.perSecond(saturation) + ")",
                        Fmt.perSecond(OverloadPhase.admissionsPerSecond(m)) + " = "
                                + Fmt.percent(OverloadPhase.admissionsPerSecond(m), saturation),
                        Fmt.atLeast(OverloadPhase.admissionsPerSecond(m), saturation)));
            }
        }
        if (r.hold != null) {
            rows.add(List.of(
                    r.hold.concurrency() + " connections held "
                            + Fmt.seconds(r.hold.elapsed().toMillis() / 1000.0),
                    "no errors, no time-outs",
                    Fmt.count(r.hold.errors()) + " errors of " + Fmt.count(r.hold.total()),
                    r.hold.errors() == 0 ? "met" : "**missed**"));
        }
        if (r.slowAlone != null && r.slowBeside != null) {
            double alone = r.slowAlone.measured().millis(99);
            double beside = r.slowBeside.measured().millis(99);
            rows.add(List.of(
                    "other members' admission p99 beside " + Fmt.count(r.slowHeld.connections()) + " slow clients",
                    "≤ 1.5 × p99 alone (" + Fmt.ms(alone * GROWTH_FACTOR) + "), no errors",
                    Fmt.ms(beside) + " = " + Fmt.ratio(beside, alone) + "×, "
                            + Fmt.count(r.slowBeside.measured().errors()) + " errors",
                    r.slowBeside.measured().errors() == 0 ? Fmt.atMost(beside, alone * GROWTH_FACTOR) : "**missed**"));
        }
        if (r.issuance != null && r.rawInsert != null) {
            double raw = r.rawInsert.rowsPerSecond();
            rows.add(List.of(
                    "issuance",
                    "≥ 40% of the raw batched-insert rate (" + Fmt.perSecond(raw * ISSUANCE_SHARE) + ")",
                    Fmt.perSecond(r.issuance.walletsPerSecond()) + " = "
                            + Fmt.percent(r.issuance.walletsPerSecond(), raw),
                    Fmt.atLeast(r.issuance.walletsPerSecond(), raw * ISSUANCE_SHARE)));
        }
        if (r.growth.size() >= 2) {
            Results.GrowthPoint first = r.growth.get(0);
            Results.GrowthPoint last = r.growth.get(r.growth.size() - 1);
            double bound = first.admissions().millis(99) * GROWTH_FACTOR;
            rows.add(List.of(
                    "admission p99 with " + Fmt.count(last.queued()) + " queued",
                    "≤ 1.5 × p99 with " + Fmt.count(first.queued()) + " (" + Fmt.ms(bound) + ")",
                    Fmt.ms(last.admissions().millis(99)) + " = "
                            + Fmt.ratio(
                                    last.admissions().millis(99),
                                    first.admissions().millis(99)) + "×",
                    Fmt.atMost(last.admissions().millis(99), bound)));
        }
        if (rows.isEmpty()) {
            line("No target could be evaluated: see the notes.");
            line();
        } else {
            table(List.of("target", "bound", "this run", "verdict"), rows);
            if (r.openReference != null
                    && (r.openReference.measured().millis(99) > OPEN_P99_MS
                            || r.openReference.measured().millis(99.9) > OPEN_P999_MS)) {
                line("The reference server, with no Spring, misses the open model's latency targets too at this rate:"
                        + " on this machine the tail belongs to the machine (the load generator, Redis and three JVMs'"
                        + " collectors on the same cores), and the api's figure means something only beside it.");
                line();
            }
        }
    }

    private void admission(Results r) {
        line("## 1. Admission under a flash crowd");
        line();
        if (r.warmup != null) {
            line("Warm-up first (not counted): " + Fmt.count(r.warmup.total()) + " requests over "
                    + Fmt.seconds(r.warmup.elapsed().toMillis() / 1000.0) + ", at "
                    + Fmt.perSecond(r.warmup.perSecond()) + ".");
            line();
        }
        List<List<String>> rows = new java.util.ArrayList<>();
        for (Measured m : new Measured[] {
            r.crowd, r.rawRedisCrowd, r.saturation, r.reference, r.rawUnpipelined, r.rawRedisSaturation, r.hold
        }) {
            if (m != null) {
                rows.add(latencyRow(m));
            }
        }
        for (OpenModel.Result open : openRuns(r)) {
            rows.add(latencyRow(open.measured()));
        }
        if (rows.isEmpty()) {
            line("Not measured: see the notes.");
            line();
            return;
        }
        table(List.of("run", "connections", "requests", "per second", "p50", "p99", "p99.9", "max", "errors"), rows);
        if (r.crowd != null && r.rawRedisCrowd != null) {
            line("Crowd over HTTP against the raw script at the same concurrency: **"
                    + Fmt.ratio(r.crowd.perSecond(), r.rawRedisCrowd.perSecond()) + "** of the ceiling ("
                    + Fmt.perSecond(r.crowd.perSecond()) + " / " + Fmt.perSecond(r.rawRedisCrowd.perSecond()) + ").");
            line();
        }
        saturation(r);
        for (OpenModel.Result open : openRuns(r)) {
            line((open == r.open ? "Open model" : "Open model against the reference server") + ": "
                    + Fmt.count(open.measured().total()) + " requests offered at "
                    + Fmt.perSecond(open.ratePerSecond()) + ", latency timed from each request's intended start "
                    + "(coordinated omission corrected); the client started a request at worst "
                    + Fmt.ms(open.maxStartLag().toNanos() / 1e6) + " behind schedule"
                    + (open.unfinished() > 0 ? "; " + Fmt.count(open.unfinished()) + " never answered" : "")
                    + ".");
            line();
        }
        openCpu(r);
        line("Outcomes (HTTP status and problem code; the raw runs count the script's answers):");
        line();
        List<List<String>> outcomes = new java.util.ArrayList<>();
        for (Measured m :
                new Measured[] {r.crowd, r.rawRedisCrowd, r.saturation, r.reference, r.rawUnpipelined, r.hold}) {
            if (m != null) {
                outcomes.add(List.of(m.label(), outcomes(m.outcomes())));
            }
        }
        for (OpenModel.Result open : openRuns(r)) {
            outcomes.add(
                    List.of(open.measured().label(), outcomes(open.measured().outcomes())));
        }
        table(List.of("run", "outcomes"), outcomes);
    }

    /** Issue 12: the api against the reference server and the raw script at the same concurrency, and CPU. */
    private void saturation(Results r) {
        if (r.saturation == null) {
            return;
        }
        double api = OverloadPhase.admissionsPerSecond(r.saturation);
        line("Saturation, closed loop at " + r.saturation.concurrency() + " connections, admissions per second:");
        line();
        List<List<String>> rows = new java.util.ArrayList<>();
        rows.add(List.of(
                "api",
                Fmt.perSecond(api),
                "1.00",
                Fmt.micros(r.apiCpuMicrosPerAdmission),
                Fmt.micros(r.redisCpuMicrosPerAdmissionApi)));
        if (r.reference != null) {
            double reference = OverloadPhase.admissionsPerSecond(r.reference);
            rows.add(List.of(
                    "reference server (Reactor Netty, Nimbus HS256, the same script through Lettuce; no Spring)",
                    Fmt.perSecond(reference),
                    Fmt.ratio(api, reference),
                    Fmt.micros(r.referenceCpuMicrosPerAdmission),
                    Fmt.micros(r.redisCpuMicrosPerAdmissionReference)));
        }
        if (r.rawUnpipelined != null) {
            double raw = r.rawUnpipelined.count("admitted") / seconds(r.rawUnpipelined);
            rows.add(List.of(
                    "raw script, one in flight per connection (no HTTP, no token)",
                    Fmt.perSecond(raw),
                    Fmt.ratio(api, raw),
                    "–",
                    "–"));
        }
        if (r.rawRedisSaturation != null) {
            double raw = r.rawRedisSaturation.count("admitted") / seconds(r.rawRedisSaturation);
            rows.add(List.of(
                    "raw script, pipelined on one connection (information only: no server can pipeline HTTP clients)",
                    Fmt.perSecond(raw),
                    Fmt.ratio(api, raw),
                    "–",
                    "–"));
        }
        table(List.of("run", "admissions/s", "api / this", "its CPU per admission", "Redis CPU per admission"), rows);
        line("CPU per admission: the process's utime + stime from `/proc/<pid>/stat` between the start and the end of "
                + "its run, divided by its 202s; the load generator runs on the same cores. The reference server runs in "
                + "a JVM of its own, started by the bench with the api's JVM options"
                + (r.referenceJvmOptions.isEmpty() ? "" : " (`" + r.referenceJvmOptions + "`)")
                + ", warmed before it is measured, with the api's rate limits.");
        line();
    }

    /** The open models that ran: the api's, then the reference server's at the same rate. */
    private static List<OpenModel.Result> openRuns(Results r) {
        return java.util.stream.Stream.of(r.open, r.openReference)
                .filter(java.util.Objects::nonNull)
                .toList();
    }

    /** Where the cores went during the open models: each process's CPU per answered request. */
    private void openCpu(Results r) {
        List<List<String>> rows = new java.util.ArrayList<>();
        if (r.openCpu != null) {
            rows.add(cpuRow("open model, api", r.openCpu));
        }
        if (r.openReferenceCpu != null) {
            rows.add(cpuRow("open model, reference server", r.openReferenceCpu));
        }
        if (rows.isEmpty()) {
            return;
        }
        line(
                "CPU per answered request during the open models (from `/proc/<pid>/stat`, as above; the load generator is "
                        + "this benchmark's JVM, on the same cores):");
        line();
        table(List.of("run", "server", "load generator", "Redis"), rows);
    }

    private static List<String> cpuRow(String run, OpenModelPhase.Cpu cpu) {
        return List.of(run, Fmt.micros(cpu.server()), Fmt.micros(cpu.client()), Fmt.micros(cpu.redis()));
    }

    private static double seconds(Measured m) {
        double s = m.elapsed().toNanos() / 1e9;
        return s > 0 ? s : Double.NaN;
    }

    private void overload(Results r) {
        if (r.overload == null) {
            return;
        }
        Measured m = r.overload.measured();
        line("## Overload: twice the saturation rate");
        line();
        line("An open model at " + Fmt.perSecond(r.overload.ratePerSecond()) + " ("
                + Fmt.ratio(r.overload.ratePerSecond(), r.overloadBase) + " × " + Fmt.perSecond(r.overloadBase)
                + " admissions) for " + Fmt.seconds(m.elapsed().toMillis() / 1000.0) + ", up to "
                + m.concurrency() + " connections, each request a distinct member; latency timed from each request's "
                + "intended start, so a queue anywhere (the client's pool, the sockets, the api) shows. The client "
                + "started a request at worst "
                + Fmt.ms(r.overload.maxStartLag().toNanos() / 1e6)
                + " behind schedule.");
        line();
        table(
                List.of("run", "connections", "requests", "per second", "p50", "p99", "p99.9", "max", "errors"),
                List.of(latencyRow(m)));
        long refused = m.count("503 UNAVAILABLE");
        long unanswered = m.count(Measured.NO_ANSWER);
        table(
                List.of("answers", "count", "share"),
                List.of(
                        List.of("all requests", Fmt.count(m.total()), "100%"),
                        List.of(
                                "answered (any status)",
                                Fmt.count(m.total() - unanswered),
                                Fmt.percent(m.total() - unanswered, m.total())),
                        List.of(
                                "202: a place in line",
                                Fmt.count(m.count("202")),
                                Fmt.percent(m.count("202"), m.total())),
                        List.of(
                                "503 UNAVAILABLE (refused, Retry-After)",
                                Fmt.count(refused),
                                Fmt.percent(refused, m.total())),
                        List.of(
                                "connection errors and time-outs",
                                Fmt.count(unanswered),
                                Fmt.percent(unanswered, m.total()))));
        line("Outcomes: " + outcomes(m.outcomes()) + ".");
        line();
        if (r.saturation != null) {
            double saturation = OverloadPhase.saturationAdmissions(r);
            line("Admissions per second: " + Fmt.perSecond(OverloadPhase.admissionsPerSecond(m))
                    + " under overload against " + Fmt.perSecond(saturation) + " at saturation ("
                    + Fmt.ratio(OverloadPhase.admissionsPerSecond(m), saturation) + "). On this machine the load "
                    + "generator shares the api's 2 cores, and it works harder at twice the rate: the refusals' share "
                    + "of the client and of the api is taken from the admissions.");
            line();
        }
        long spun = r.saturation == null ? 0 : r.saturation.count("503 UNAVAILABLE");
        if (spun > 0) {
            line("Caution: " + Fmt.percent(spun, r.saturation.total()) + " of the saturation phase's answers were 503 "
                    + "refusals. Its closed loop sends the next request as soon as one is answered, ignoring "
                    + "`Retry-After`, so refused connections spin and take CPU from the admissions: its admissions/s "
                    + "understate the api's capacity. Measure that with `COUPON_OVERLOAD_ENABLED=false` and offer "
                    + "twice it with `--overload-rate`.");
            line();
        }
    }

    private void slowClients(Results r) {
        if (r.slowAlone == null || r.slowBeside == null) {
            return;
        }
        line("## Slow clients: bodies that never come");
        line();
        line("Other members' admissions, each a distinct member, as an open model at "
                + Fmt.perSecond(r.slowAlone.ratePerSecond()) + " (latency from each request's intended start): first "
                + "alone, then while " + r.slowHeld + ". Each held connection sends a wallet `use` or a device "
                + "registration's head announcing a 16,000-byte body and one byte of it; the api reads a body before "
                + "the request takes an overload permit, and closes the connection at its read time-out (answering 408); "
                + "each is opened again at once.");
        line();
        table(
                List.of("run", "connections", "requests", "per second", "p50", "p99", "p99.9", "max", "errors"),
                List.of(latencyRow(r.slowAlone.measured()), latencyRow(r.slowBeside.measured())));
        line("Outcomes alone: " + outcomes(r.slowAlone.measured().outcomes()) + "; beside the slow clients: "
                + outcomes(r.slowBeside.measured().outcomes()) + ".");
        line();
    }

    private void loadgen(Results r) {
        line("## 2. The load generator's own ceiling");
        line();
        if (r.loadgenLocal == null && r.loadgenLiveness == null) {
            line("Not measured: see the notes.");
            line();
            return;
        }
        List<List<String>> rows = new java.util.ArrayList<>();
        for (Measured m : new Measured[] {r.loadgenLocal, r.loadgenLiveness}) {
            if (m != null) {
                rows.add(latencyRow(m));
            }
        }
        table(List.of("run", "connections", "requests", "per second", "p50", "p99", "p99.9", "max", "errors"), rows);
        if (r.loadgenLocal != null && r.crowd != null) {
            line("The same client against a trivial server answered " + Fmt.perSecond(r.loadgenLocal.perSecond())
                    + ", " + Fmt.ratio(r.loadgenLocal.perSecond(), r.crowd.perSecond())
                    + "× the crowd's rate: "
                    + (r.loadgenLocal.perSecond() >= 1.5 * r.crowd.perSecond()
                            ? "the client is not what limits the crowd."
                            : "**the client may be limiting the crowd** (less than 1.5× headroom).")
                    + " (The trivial server runs in the client's JVM, so both share the 2 cores: a lower bound.)");
            line();
        }
    }

    private void growth(Results r) {
        line("## 3. Growth with the queue's size");
        line();
        if (r.growth.isEmpty()) {
            line("Not measured: see the notes.");
            line();
            return;
        }
        List<List<String>> rows = new java.util.ArrayList<>();
        for (Results.GrowthPoint p : r.growth) {
            rows.add(List.of(
                    Fmt.count(p.queued()),
                    Fmt.perSecond(p.admissions().perSecond()),
                    Fmt.ms(p.admissions().millis(50)),
                    Fmt.ms(p.admissions().millis(99)),
                    Fmt.perSecond(p.statusReads().perSecond()),
                    Fmt.ms(p.statusReads().millis(99)),
                    Fmt.count(p.admissions().errors() + p.statusReads().errors()),
                    Fmt.mib(p.redisUsedBytes())));
        }
        table(
                List.of(
                        "queued",
                        "admissions",
                        "admission p50",
                        "admission p99",
                        "status reads",
                        "status p99",
                        "errors",
                        "Redis memory"),
                rows);
        Results.GrowthPoint first = r.growth.get(0);
        for (Results.GrowthPoint p : r.growth.subList(1, r.growth.size())) {
            double p99 = p.admissions().millis(99)
                    / Math.max(0.001, first.admissions().millis(99));
            double reads = p.statusReads().perSecond()
                    / Math.max(1, first.statusReads().perSecond());
            line("- " + Fmt.count(p.queued()) + " queued: admission p99 "
                    + String.format(java.util.Locale.ROOT, "%.2f", p99) + "× the smallest queue's, status reads "
                    + String.format(java.util.Locale.ROOT, "%.2f", reads) + "× its rate: "
                    + (p99 <= GROWTH_FACTOR && reads >= 1 / GROWTH_FACTOR ? "flat." : "**not flat**."));
        }
        line();
        line("Why it may not be flat: admission is ZSCORE, ZCARD, INCR and ZADD on the queue (O(1) and O(log N)); a "
                + "status read ranks the member in the queue (ZRANK, O(log N)). Past that, a bigger queue means more "
                + "Redis memory (less of it in the CPU caches) and, with AOF on, a bigger rewrite when Redis compacts "
                + "its log; a step that the O(log N) terms cannot explain points at those or at another process "
                + "taking the cores in that interval.");
        line();
    }

    private void issuance(Results r) {
        line("## 4. End-to-end issuance");
        line();
        Results.Issuance i = r.issuance;
        if (i == null) {
            line("Not measured: see the notes.");
            line();
        } else {
            line("Coupon " + i.couponId() + ": " + Fmt.count(i.queued()) + " requests queued in "
                    + Fmt.seconds(i.fillSeconds()) + " while its drain was paused (issue rate 1/s), then the rate was "
                    + "raised to 100,000/s. Drain time is from that change to the last wallet row "
                    + "(its `issued_at`). The worker's write limit: " + i.workerLimit() + ".");
            line();
            table(
                    List.of(
                            "wallets",
                            "of which before the change (the paused drain's 1/s)",
                            "failed",
                            "drain time",
                            "wallets per second"),
                    List.of(List.of(
                            Fmt.count(i.issued()),
                            Fmt.count(i.issuedBefore()),
                            Fmt.count(i.failed()),
                            Fmt.seconds(i.drainSeconds()),
                            Fmt.perSecond(i.walletsPerSecond()))));
        }
        if (r.rawInsert != null) {
            line("Raw MySQL in the same run: " + Fmt.count(r.rawInsert.rows()) + " rows of the wallet's shape in "
                    + Fmt.count(r.rawInsert.batch()) + "-row `INSERT IGNORE` statements, one commit each, into a "
                    + "scratch table: " + Fmt.perSecond(r.rawInsert.rowsPerSecond()) + " in "
                    + Fmt.seconds(r.rawInsert.seconds()) + ".");
            line();
        }
        if (i != null && r.rawInsert != null) {
            line("Issuance against the raw insert rate: **"
                    + Fmt.ratio(i.walletsPerSecond(), r.rawInsert.rowsPerSecond()) + "**.");
            line();
        }
    }

    private void memory(Results r) {
        line("## 5. Memory of the apps");
        line();
        if (r.memory.isEmpty()) {
            line("Not measured: see the notes.");
            line();
            return;
        }
        table(
                List.of(
                        "app",
                        "phase",
                        "peak heap used (sampled every " + MemorySampler.HEAP_EVERY + " s)",
                        "peak RSS (sampled)",
                        "VmHWM (process life)"),
                r.memory.stream()
                        .map(p -> List.of(
                                p.app(),
                                p.phase(),
                                Fmt.mib(p.heapBytes()),
                                Fmt.mib(p.rssBytes()),
                                Fmt.mib(p.hwmBytes())))
                        .toList());
    }

    static String outcomes(Map<String, Long> outcomes) {
        StringBuilder text = new StringBuilder();
        outcomes.forEach((k, v) ->
                text.append(text.isEmpty() ? "" : ", ").append(k).append(": ").append(Fmt.count(v)));
        return text.isEmpty() ? "none" : text.toString();
    }

    static List<String> latencyRow(Measured m) {
        return List.of(
                m.label(),
                Integer.toString(m.concurrency()),
                Fmt.count(m.total()),
                Fmt.perSecond(m.perSecond()),
                Fmt.ms(m.millis(50)),
                Fmt.ms(m.millis(99)),
                Fmt.ms(m.millis(99.9)),
                Fmt.ms(m.maxMillis()),
                Fmt.count(m.errors()));
    }

    private void table(List<String> header, List<List<String>> rows) {
        line("| " + String.join(" | ", header) + " |");
        line("|" + " --- |".repeat(header.size()));
        for (List<String> row : rows) {
            line("| "
                    + String.join(
                            " | ", row.stream().map(c -> c.replace("|", "\\|")).toList()) + " |");
        }
        line();
    }

    private void line(String text) {
        md.append(text).append('\n');
    }

    private void line() {
        md.append('\n');
    }
}
