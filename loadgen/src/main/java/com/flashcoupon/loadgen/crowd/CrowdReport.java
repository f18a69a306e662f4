package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.LoadResult;
import java.time.Duration;
import java.util.List;

/**
 * Everything the summary prints about one crowd run.
 *
 * @param issuance null when the run stopped before issuance could be waited for
 * @param checks the invariants; empty when they could not be checked (then the run fails)
 * @param notes anything else worth a line: the first unexpected answer, why checks could not run …
 */
record CrowdReport(
        String runId,
        long couponId,
        int coupons,
        int rate,
        int members,
        int askingTwice,
        int concurrency,
        LoadResult crowd,
        Issuance issuance,
        List<Check> checks,
        List<String> notes) {

    /**
     * How issuance went: whether every admitted request got a result before the time-out, the counts, and the time
     * from the first 202 to the last wallet row ({@code took} null when unknown), measured as {@code how} says.
     */
    record Issuance(boolean drained, long admitted, long wallets, long failed, Duration took, String how) {}

    boolean passed() {
        return !checks.isEmpty() && checks.stream().allMatch(Check::passed);
    }
}
