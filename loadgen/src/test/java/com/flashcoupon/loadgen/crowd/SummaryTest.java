package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.loadgen.engine.LoadResult;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class SummaryTest {

    private static LoadResult crowd() {
        Histogram latency = new Histogram(3);
        for (int i = 1; i <= 1_000; i++) {
            latency.recordValue(i * 10L); // 10 µs … 10 ms
        }
        return new LoadResult(
                26_660,
                Map.of("202", 5_000L, "200", 1_660L, "409 SOLD_OUT", 19_990L, "HTTP 401", 10L),
                latency,
                Duration.ofMillis(2_000),
                null);
    }

    private static CrowdReport report(List<Check> checks, CrowdReport.Issuance issuance) {
        return new CrowdReport(
                "abc123", 42, 5_000, 2_000, 20_000, 6_660, 256, crowd(), issuance, checks, List.of("a note"));
    }

    private static final CrowdReport.Issuance ISSUED =
            new CrowdReport.Issuance(true, 5_000, 4_990, 10, Duration.ofMillis(2_500), "wallet issued_at");

    @Test
    void shouldPrintEveryFigureOfTheRun() {
        String text = Summary.format(report(List.of(new Check("(1) one", true, "fine")), ISSUED));

        assertThat(text)
                .contains("run         abc123, coupon 42: 5,000 coupons issued at 2,000/s\n")
                .contains(
                        "crowd       26,660 requests from 20,000 members (6,660 asking twice), 256 in flight, in 2.00 s\n")
                .contains("admissions  13,325 answers/s (202 + 200 + 409), 2,500 accepted/s (202)\n")
                .contains("latency     p50 5.0 ms, p99 9.9 ms, p99.9 10.0 ms, max 10.0 ms\n")
                .contains("statuses    202: 5,000, 200: 1,660, 409 SOLD_OUT: 19,990, 409 NOT_OPEN: 0, 429: 0, 503: 0,"
                        + " connection error: 0, HTTP 401: 10\n")
                .contains("issuance    4,990 wallets + 10 FAILED of 5,000 admitted, 2.50 s from first admission to"
                        + " last wallet (wallet issued_at): 1,996 wallets/s\n")
                .contains("  PASS  (1) one: fine\n")
                .contains("note        a note\n")
                .endsWith("result      PASS\n");
    }

    @Test
    void shouldFailWhenAnyCheckFails() {
        String text = Summary.format(
                report(List.of(new Check("(1) one", true, "fine"), new Check("(2) two", false, "broken")), ISSUED));

        assertThat(text).contains("  FAIL  (2) two: broken\n").endsWith("result      FAIL\n");
    }

    @Test
    void shouldFailWhenNothingWasChecked() {
        String text = Summary.format(report(List.of(), ISSUED));

        assertThat(text).contains("invariants  NOT CHECKED\n").endsWith("result      FAIL\n");
    }

    @Test
    void shouldSayWhenIssuanceDidNotFinish() {
        String text = Summary.format(report(
                List.of(new Check("(1) one", true, "fine")),
                new CrowdReport.Issuance(false, 5_000, 3_000, 0, null, "unknown")));

        assertThat(text)
                .contains(
                        "issuance    NOT FINISHED in time: 3,000 wallets + 0 FAILED of 5,000 admitted, time unknown\n");
    }

    @Test
    void shouldDrawTheProgressLineWithCountsInOutcomeOrder() {
        String line = ProgressPrinter.line(
                "crowd", 13_330, 26_660, 10_812.4, Map.of("409 SOLD_OUT", 8_000L, "202", 5_000L, "503", 0L));

        assertThat(line)
                .isEqualTo("crowd [##########..........] 13,330/26,660  10,812/s  202: 5,000  409 SOLD_OUT: 8,000");
    }

    @Test
    void shouldClampTheBar() {
        assertThat(ProgressPrinter.bar(-1, 4)).isEqualTo("[....]");
        assertThat(ProgressPrinter.bar(0.5, 4)).isEqualTo("[##..]");
        assertThat(ProgressPrinter.bar(2, 4)).isEqualTo("[####]");
    }

    @Test
    void shouldDrawTheIssuanceLine() {
        assertThat(IssuanceWait.line(new CouponAdmin.CouponStats(5_000, 5_000, 2_400, 100, 0), null))
                .isEqualTo("issuance  [##########..........] 2,500/5,000  published 5,000  issued 2,400  failed 100");
        assertThat(IssuanceWait.line(null, "refused"))
                .isEqualTo("issuance  waiting for the coupon's counters: refused");
    }
}
