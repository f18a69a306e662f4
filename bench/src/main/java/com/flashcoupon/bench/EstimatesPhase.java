package com.flashcoupon.bench;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.crowd.CrowdCommand;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How far the wait estimates are from the real waits (issue 13): {@code bin/demo}'s crowd, run in this process, for a
 * steady event (2,000 members, 2,000 coupons at 100/s) and for one whose rate the operator halves 8 s in. The crowd
 * scores every estimate told at admission and at the status reads of a sample of members against the wallet's {@code
 * issued_at}; its lines go to the report as they are. A worker slowed below the rate needs the worker restarted with
 * {@code COUPON_WORKER_MAX_WRITES_PER_SECOND}, which the bench does not do: see docs/benchmarks/README.md.
 */
final class EstimatesPhase implements Phase {

    private static final List<String> SCORES =
            List.of("wait estimates", "precise wait estimates", "after the rate change", "the operator changed");

    @Override
    public void run(BenchRun b) throws Exception {
        estimate(b, "steady, 100/s", List.of());
        estimate(b, "rate halved after 8 s", List.of("--change-rate-after", "8s"));
    }

    private static void estimate(BenchRun b, String name, List<String> extra) throws InterruptedException {
        BenchSettings s = b.s;
        b.info("estimates: " + name);
        List<String> args = new ArrayList<>(List.of(
                "--api", s.api(),
                "--members", "2000",
                "--coupons", "2000",
                "--rate", "100",
                "--concurrency", Integer.toString(Math.min(s.concurrency(), 256)),
                "--progress", "off",
                "--jwt-secret", s.jwtSecret(),
                "--db-url", s.dbUrl(),
                "--db-user", s.dbUser(),
                "--db-password", s.dbPassword()));
        args.addAll(extra);
        var out = new ByteArrayOutputStream();
        var err = new ByteArrayOutputStream();
        int code;
        try (var outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
                var errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            Flags flags = Flags.parse(args, CrowdCommand.options(), Map.of());
            code = new CrowdCommand(outStream, errStream).run(flags, Map.of());
        }
        String report = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        b.r.estimates.add(
                "**" + name + "** (" + (code == CrowdCommand.PASSED ? "invariants held" : "exit " + code) + "):");
        report.lines()
                .map(String::strip)
                .filter(line -> line.startsWith("latency") || SCORES.stream().anyMatch(p -> line.contains(p)))
                .map(line -> line.startsWith("note") ? line.substring(4).strip() : line)
                .forEach(line -> b.r.estimates.add("  - " + line));
        b.info("estimates: " + name + " done (exit " + code + ")");
    }
}
