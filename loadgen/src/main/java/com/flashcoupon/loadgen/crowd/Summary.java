package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.LoadResult;
import java.util.Locale;
import java.util.Map;

/** The text printed at the end of a crowd run. */
final class Summary {

    private Summary() {}

    static String format(CrowdReport report) {
        LoadResult crowd = report.crowd();
        Map<String, Long> outcomes = Outcome.ordered(crowd.outcomes());
        long accepted = crowd.count(Outcome.ACCEPTED.label);
        long decided = outcomes.entrySet().stream()
                .filter(e -> e.getKey().equals(Outcome.ACCEPTED.label)
                        || e.getKey().equals(Outcome.ASKED_BEFORE.label)
                        || e.getKey().startsWith("409"))
                .mapToLong(Map.Entry::getValue)
                .sum();
        StringBuilder out = new StringBuilder();
        line(
                out,
                "run",
                "%s, coupon %d: %,d coupons issued at %,d/s",
                report.runId(),
                report.couponId(),
                report.coupons(),
                report.rate());
        line(
                out,
                "crowd",
                "%,d requests from %,d members (%,d asking twice), %,d in flight, in %.2f s",
                crowd.total(),
                report.members(),
                report.askingTwice(),
                report.concurrency(),
                crowd.elapsed().toNanos() / 1e9);
        line(
                out,
                "admissions",
                "%,.0f answers/s (202 + 200 + 409), %,.0f accepted/s (202)",
                crowd.perSecond(decided),
                crowd.perSecond(accepted));
        line(
                out,
                "latency",
                "p50 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms",
                crowd.latencyMillis(50),
                crowd.latencyMillis(99),
                crowd.latencyMillis(99.9),
                crowd.latencyMillis(100));
        StringBuilder statuses = new StringBuilder();
        outcomes.forEach((outcome, count) -> statuses.append(statuses.isEmpty() ? "" : ", ")
                .append(String.format(Locale.ROOT, "%s: %,d", outcome, count)));
        line(out, "statuses", "%s", statuses);
        CrowdReport.Issuance issuance = report.issuance();
        if (issuance == null) {
            line(out, "issuance", "not waited for");
        } else {
            String took = issuance.took() == null
                    ? "time unknown"
                    : String.format(
                            Locale.ROOT,
                            "%.2f s from first admission to last wallet (%s): %,.0f wallets/s",
                            issuance.took().toNanos() / 1e9,
                            issuance.how(),
                            issuance.took().isZero() || issuance.took().isNegative()
                                    ? 0.0
                                    : issuance.wallets() / (issuance.took().toNanos() / 1e9));
            line(
                    out,
                    "issuance",
                    "%s%,d wallets + %,d FAILED of %,d admitted, %s",
                    issuance.drained() ? "" : "NOT FINISHED in time: ",
                    issuance.wallets(),
                    issuance.failed(),
                    issuance.admitted(),
                    took);
        }
        if (report.checks().isEmpty()) {
            line(out, "invariants", "NOT CHECKED");
        } else {
            line(out, "invariants", "docs/architecture.md, checked in MySQL");
            for (Check check : report.checks()) {
                out.append(
                        String.format(Locale.ROOT, "  %s  %s: %s\n", check.verdict(), check.title(), check.detail()));
            }
        }
        for (String note : report.notes()) {
            line(out, "note", "%s", note);
        }
        line(out, "result", "%s", report.passed() ? "PASS" : "FAIL");
        return out.toString();
    }

    private static void line(StringBuilder out, String label, String format, Object... args) {
        out.append(String.format(Locale.ROOT, "%-11s ", label))
                .append(String.format(Locale.ROOT, format, args))
                .append('\n');
    }
}
