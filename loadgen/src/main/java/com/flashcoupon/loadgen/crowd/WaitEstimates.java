package com.flashcoupon.loadgen.crowd;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Every {@code estimatedWaitSeconds} a member was told, at admission (the 202) and at each status read, with when it
 * was told; once issuance is over, scored against when the member's wallet was written ({@code issued_at}): the error
 * is {@code |estimated - actual| / actual}. Waits under {@link #MIN_WAIT_SECONDS} are left out (the estimate is in whole
 * seconds, so a wait of half a second told "1" would count as 100% off).
 */
final class WaitEstimates {

    static final double MIN_WAIT_SECONDS = 1.0;

    /** After a rate change the estimate is expected to be right again within this long (issue 13). */
    static final long SETTLE_MILLIS = 5_000;

    /** One estimate told: {@code estimatedMillis} is the precise one ({@code estimatedWaitMillis}), -1 if absent. */
    record Told(
            int member,
            long atMillis,
            long position,
            long estimatedSeconds,
            long estimatedMillis,
            boolean atAdmission) {}

    private final JsonMapper json;
    private final ConcurrentLinkedQueue<Told> told = new ConcurrentLinkedQueue<>();

    WaitEstimates(JsonMapper json) {
        this.json = json;
    }

    /** Records the estimate in a status body (202 or a status read) if the member is WAITING; false when not. */
    boolean told(int member, String body, boolean atAdmission, long atMillis) {
        JsonNode node = JsonBodies.parse(json, body);
        if (!"WAITING".equals(JsonBodies.text(json, body, "status"))) {
            return false;
        }
        JsonNode estimate = node.path("estimatedWaitSeconds");
        if (estimate.isNumber()) {
            JsonNode precise = node.path("estimatedWaitMillis");
            told.add(new Told(
                    member,
                    atMillis,
                    node.path("position").asLong(0),
                    estimate.longValue(),
                    precise.isNumber() ? precise.longValue() : -1,
                    atAdmission));
        }
        return true;
    }

    /** p50 and p90 of the relative error, over {@code count} estimates. */
    record Errors(int count, double p50, double p90) {
        String describe() {
            return count == 0
                    ? "none"
                    : String.format(Locale.ROOT, "p50 %.1f%%, p90 %.1f%% (%,d estimates)", p50 * 100, p90 * 100, count);
        }
    }

    /**
     * The report: estimates at admission, at status reads, and (when the rate changed at {@code changedAtMillis}, else
     * 0) status reads in the 5 s after the change and after that.
     */
    List<String> report(Map<String, LocalDateTime> issuedAt, String[] memberIds, long changedAtMillis) {
        return report(issuedAt, memberIds, changedAtMillis, line -> {});
    }

    /**
     * The same, and every scored estimate as a CSV line to {@code csv} (header first). When the api gave the precise
     * estimate too ({@code estimatedWaitMillis}), it is scored on a line of its own: whole seconds alone are up to half
     * a second off, which is more than 10% of any wait under five seconds.
     */
    List<String> report(
            Map<String, LocalDateTime> issuedAt, String[] memberIds, long changedAtMillis, Consumer<String> csv) {
        csv.accept("member,told_at_ms,at_admission,position,estimated_s,estimated_ms,actual_s,error,precise_error");
        Scores seconds = new Scores();
        Scores precise = new Scores();
        for (Told t : told) {
            LocalDateTime issued = issuedAt.get(memberIds[t.member()]);
            if (issued == null) {
                continue; // FAILED (sold out): no wait to compare with
            }
            double actual = (issued.toInstant(ZoneOffset.UTC).toEpochMilli() - t.atMillis()) / 1000.0;
            if (actual < MIN_WAIT_SECONDS) {
                continue;
            }
            double error = Math.abs(t.estimatedSeconds() - actual) / actual;
            double preciseError =
                    t.estimatedMillis() < 0 ? -1 : Math.abs(t.estimatedMillis() / 1000.0 - actual) / actual;
            csv.accept(String.format(
                    Locale.ROOT,
                    "%s,%d,%b,%d,%d,%d,%.3f,%.4f,%.4f",
                    memberIds[t.member()],
                    t.atMillis(),
                    t.atAdmission(),
                    t.position(),
                    t.estimatedSeconds(),
                    t.estimatedMillis(),
                    actual,
                    error,
                    preciseError));
            seconds.add(t, error, changedAtMillis);
            if (preciseError >= 0) {
                precise.add(t, preciseError, changedAtMillis);
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("wait estimates vs wallet issued_at (waits of 1 s or more): " + seconds.describe());
        if (!precise.isEmpty()) {
            lines.add("precise wait estimates (estimatedWaitMillis): " + precise.describe());
        }
        if (changedAtMillis > 0) {
            Scores after = precise.isEmpty() ? seconds : precise;
            lines.add("after the rate change, status reads" + (precise.isEmpty() ? "" : " (precise)") + ": within 5 s "
                    + errors(after.settling).describe() + "; later "
                    + errors(after.settled).describe());
        }
        return lines;
    }

    /** The errors of one kind of estimate, by when they were told. */
    private static final class Scores {
        final List<Double> admission = new ArrayList<>();
        final List<Double> reads = new ArrayList<>();
        final List<Double> settling = new ArrayList<>();
        final List<Double> settled = new ArrayList<>();

        void add(Told t, double error, long changedAtMillis) {
            if (t.atAdmission()) {
                admission.add(error);
            } else {
                reads.add(error);
                if (changedAtMillis > 0 && t.atMillis() >= changedAtMillis) {
                    (t.atMillis() - changedAtMillis < SETTLE_MILLIS ? settling : settled).add(error);
                }
            }
        }

        boolean isEmpty() {
            return admission.isEmpty() && reads.isEmpty();
        }

        String describe() {
            return "at admission " + errors(admission).describe() + "; at status reads "
                    + errors(reads).describe();
        }
    }

    static Errors errors(List<Double> values) {
        if (values.isEmpty()) {
            return new Errors(0, 0, 0);
        }
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return new Errors(sorted.size(), percentile(sorted, 0.5), percentile(sorted, 0.9));
    }

    private static double percentile(List<Double> sorted, double fraction) {
        int index = (int) Math.ceil(fraction * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
