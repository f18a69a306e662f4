package com.flashcoupon.loadgen.crowd;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
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

    record Told(int member, long atMillis, long estimatedSeconds, boolean atAdmission) {}

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
            told.add(new Told(member, atMillis, estimate.longValue(), atAdmission));
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
        List<Double> admission = new ArrayList<>();
        List<Double> reads = new ArrayList<>();
        List<Double> settling = new ArrayList<>();
        List<Double> settled = new ArrayList<>();
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
            if (t.atAdmission()) {
                admission.add(error);
            } else {
                reads.add(error);
                if (changedAtMillis > 0 && t.atMillis() >= changedAtMillis) {
                    (t.atMillis() - changedAtMillis < SETTLE_MILLIS ? settling : settled).add(error);
                }
            }
        }
        List<String> lines = new ArrayList<>();
        lines.add("wait estimates vs wallet issued_at (waits of 1 s or more): at admission "
                + errors(admission).describe() + "; at status reads "
                + errors(reads).describe());
        if (changedAtMillis > 0) {
            lines.add("after the rate change, status reads: within 5 s "
                    + errors(settling).describe() + "; later " + errors(settled).describe());
        }
        return lines;
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
