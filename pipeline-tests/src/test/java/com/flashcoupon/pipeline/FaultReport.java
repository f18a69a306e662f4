package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The end of every fault scenario: waits until each member told "accepted" has an outcome in MySQL (a wallet or a
 * failure row), records one row of the fault table (appended to {@code target/fault-suite.md} and printed with the
 * prefix {@code FAULT-SUMMARY}, whether or not the scenario passes), then asserts that nothing was lost, duplicated or
 * over-issued and that the five invariants hold; and that every accepted member's status says how it ended.
 */
final class FaultReport {

    static final Path TABLE = Path.of("target", "fault-suite.md");
    private static final Duration SETTLE_TIMEOUT = Duration.ofMinutes(5);

    /** One row of the table. */
    record Row(
            String scenario,
            int told202,
            long issued,
            long failed,
            long lost,
            long duplicates,
            long overIssue,
            double secondsToSettle,
            String note) {

        String markdown() {
            return String.format(
                    Locale.ROOT,
                    "| %s | %d | %d | %d | %d | %d | %d | %.1f | %s |",
                    scenario,
                    told202,
                    issued,
                    failed,
                    lost,
                    duplicates,
                    overIssue,
                    secondsToSettle,
                    note);
        }
    }

    private FaultReport() {}

    /**
     * @param recoveredAt {@link System#nanoTime()} when the fault ended (the server back, the process restarted): the
     *     seconds to settle count from there
     */
    static Row settleAndCheck(
            JdbcClient jdbc, String scenario, long couponId, Set<String> accepted, long recoveredAt, String note)
            throws InterruptedException, IOException {
        return settleAndCheck(TABLE, jdbc, scenario, couponId, accepted, recoveredAt, note);
    }

    /** The same, the row appended to {@code table} (a suite of its own keeps a table of its own). */
    static Row settleAndCheck(
            Path table,
            JdbcClient jdbc,
            String scenario,
            long couponId,
            Set<String> accepted,
            long recoveredAt,
            String note)
            throws InterruptedException, IOException {
        return settleAndCheck(table, jdbc, scenario, couponId, accepted, recoveredAt, note, () -> "");
    }

    /**
     * The same, with {@code diagnosis} (read only when someone is lost) in the failure's message: where the stack
     * stood when the wait for the outcomes ended.
     */
    static Row settleAndCheck(
            Path table,
            JdbcClient jdbc,
            String scenario,
            long couponId,
            Set<String> accepted,
            long recoveredAt,
            String note,
            Supplier<String> diagnosis)
            throws InterruptedException, IOException {
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        Set<String> decided = decided(jdbc, couponId, accepted);
        while (decided.size() < accepted.size() && System.nanoTime() < deadline) {
            Thread.sleep(250);
            decided = decided(jdbc, couponId, accepted);
        }
        double seconds = Math.max(0, System.nanoTime() - recoveredAt) / 1e9;

        long stock = single(jdbc, "SELECT total_quantity FROM coupon WHERE id = ?", couponId);
        long shards = single(jdbc, "SELECT stock_shards FROM coupon WHERE id = ?", couponId);
        long issued = single(jdbc, "SELECT COUNT(*) FROM coupon_wallet WHERE coupon_id = ?", couponId);
        long failed = jdbc
                .sql("SELECT member_id FROM coupon_issue_failure WHERE coupon_id = ?")
                .param(couponId)
                .query(String.class)
                .list()
                .stream()
                .filter(accepted::contains)
                .count();
        long duplicates = single(
                jdbc,
                "SELECT COUNT(*) FROM (SELECT member_id FROM coupon_wallet WHERE coupon_id = ?"
                        + " GROUP BY member_id HAVING COUNT(*) > 1) d",
                couponId);
        Row row = new Row(
                shards > 1 ? scenario + " (" + shards + " stock shards)" : scenario,
                accepted.size(),
                issued,
                failed,
                accepted.size() - decided.size(),
                duplicates,
                Math.max(0, issued - stock),
                seconds,
                note);
        record(table, row);

        String where = row.lost() == 0 ? "" : diagnose(diagnosis);
        assertThat(row.lost())
                .as(
                        "accepted members with neither a wallet nor a failure, %s after the recovery at most%s",
                        SETTLE_TIMEOUT, where)
                .isZero();
        assertThat(row.duplicates()).as("members with more than one wallet").isZero();
        assertThat(row.overIssue()).as("wallets beyond the stock").isZero();
        Invariants.check(jdbc, couponId, accepted, FaultStack.DRAIN_BATCH);
        return row;
    }

    /** The diagnosis, or why there is none: it must never replace the failure it explains. */
    private static String diagnose(Supplier<String> diagnosis) {
        try {
            return diagnosis.get();
        } catch (RuntimeException e) {
            return "\n(no diagnosis: " + e + ")";
        }
    }

    /**
     * Every member told "accepted" is told the end as well: their status resource says ISSUED or FAILED (the worker
     * records it in Redis after MySQL, so it may trail the rows by a moment; a fault between the two must not leave
     * anyone WAITING for good).
     */
    static void assertEveryoneTold(String apiUrl, long couponId, Set<String> accepted) throws InterruptedException {
        Duration patience = Duration.ofMinutes(3);
        long deadline = System.nanoTime() + patience.toNanos();
        Map<String, String> notDecided;
        do {
            notDecided = new TreeMap<>(Crowd.statuses(apiUrl, couponId, accepted, 32));
            notDecided.values().removeIf(status -> status.equals("ISSUED") || status.equals("FAILED"));
            if (notDecided.isEmpty()) {
                return;
            }
            Thread.sleep(1_000);
        } while (System.nanoTime() < deadline);
        throw new AssertionError(
                notDecided.size() + " accepted members are not told ISSUED or FAILED within " + patience
                        + ", e.g. "
                        + notDecided.entrySet().stream().limit(5).toList());
    }

    private static Set<String> decided(JdbcClient jdbc, long couponId, Set<String> accepted) {
        Set<String> decided = new HashSet<>();
        for (String sql : List.of(
                "SELECT member_id FROM coupon_wallet WHERE coupon_id = ?",
                "SELECT member_id FROM coupon_issue_failure WHERE coupon_id = ?")) {
            jdbc.sql(sql).param(couponId).query(String.class).list().stream()
                    .filter(accepted::contains)
                    .forEach(decided::add);
        }
        return decided;
    }

    private static long single(JdbcClient jdbc, String sql, long couponId) {
        return jdbc.sql(sql).param(couponId).query(Long.class).single();
    }

    private static synchronized void record(Path table, Row row) throws IOException {
        Files.createDirectories(table.getParent());
        if (!Files.exists(table)) {
            Files.writeString(
                    table,
                    "| scenario | told 202 | issued | failed | lost | duplicates | over-issue | seconds to settle | note |\n"
                            + "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
        }
        Files.writeString(table, row.markdown() + "\n", StandardOpenOption.APPEND);
        System.out.println("FAULT-SUMMARY " + row.markdown());
    }
}
