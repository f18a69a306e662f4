package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.crowd.CouponAdmin.CouponStats;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.function.Supplier;

/** Polls the coupon's counters until every admitted request was issued or failed, or the time-out passed. */
final class IssuanceWait {

    private static final Duration POLL = Duration.ofMillis(250);

    private final Supplier<CouponStats> stats;
    private final ProgressMode progress;
    private final PrintStream err;

    IssuanceWait(Supplier<CouponStats> stats, ProgressMode progress, PrintStream err) {
        this.stats = stats;
        this.progress = progress;
        this.err = err;
    }

    /** How the wait ended: the last counters read (null if none could be), and when they were read. */
    record Result(boolean drained, CouponStats last, Instant at, String lastError) {}

    Result await(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long nextLine = 0;
        CouponStats last = null;
        String lastError = null;
        boolean bar = false;
        while (true) {
            try {
                last = stats.get();
                lastError = null;
            } catch (RuntimeException e) {
                lastError = e.getMessage();
            }
            boolean drained = last != null && last.drained();
            boolean timedOut = System.nanoTime() - deadline >= 0;
            long now = System.nanoTime();
            if (progress == ProgressMode.BAR) {
                err.print("\r" + line(last, lastError) + "\033[K");
                bar = true;
            } else if (progress == ProgressMode.LINES && (now - nextLine >= 0 || drained || timedOut)) {
                err.println(line(last, lastError));
                nextLine = now + Duration.ofSeconds(3).toNanos();
            }
            if (drained || timedOut) {
                if (bar) {
                    err.println();
                }
                return new Result(drained, last, Instant.now(), lastError);
            }
            Thread.sleep(POLL);
        }
    }

    static String line(CouponStats stats, String error) {
        if (stats == null) {
            return "issuance  waiting for the coupon's counters" + (error == null ? "" : ": " + error);
        }
        long admitted = stats.admitted();
        long finished = stats.issued() + stats.failed();
        return String.format(
                Locale.ROOT,
                "issuance  %s %,d/%,d  published %,d  issued %,d  failed %,d%s",
                ProgressPrinter.bar(admitted == 0 ? 1 : (double) finished / admitted, 20),
                finished,
                admitted,
                stats.published(),
                stats.issued(),
                stats.failed(),
                error == null ? "" : "  (last poll failed: " + error + ")");
    }
}
