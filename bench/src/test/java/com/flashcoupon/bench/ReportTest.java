package com.flashcoupon.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class ReportTest {

    /** A run of {@code n} requests in {@code seconds}, every latency {@code millis}. */
    static Measured run(
            String label, int connections, long n, double seconds, double millis, Map<String, Long> outcomes) {
        Histogram h = new Histogram(3);
        h.recordValueWithCount((long) (millis * 1000), n);
        return new Measured(label, connections, outcomes, h, Duration.ofMillis((long) (seconds * 1000)));
    }

    @Test
    void figuresAreWrittenReadably() {
        assertThat(Fmt.count(1_234_567)).isEqualTo("1,234,567");
        assertThat(Fmt.perSecond(14_532.4)).isEqualTo("14,532/s");
        assertThat(Fmt.ms(0.4234)).isEqualTo("0.42 ms");
        assertThat(Fmt.ms(42.34)).isEqualTo("42.3 ms");
        assertThat(Fmt.ms(4_200.4)).isEqualTo("4,200 ms");
        assertThat(Fmt.ratio(14_500, 45_000)).isEqualTo("0.32");
        assertThat(Fmt.ratio(1, 0)).isEqualTo("n/a");
        assertThat(Fmt.percent(18_000, 45_000)).isEqualTo("40%");
        assertThat(Fmt.mib(512L * 1024 * 1024)).isEqualTo("512 MiB");
        assertThat(Fmt.mib(-1)).isEqualTo("n/a");
    }

    @Test
    void targetsAreReportedAsMetOrMissedNeverAsserted() {
        assertThat(Fmt.atLeast(18_000, 18_000)).isEqualTo("met");
        assertThat(Fmt.atLeast(17_999, 18_000)).isEqualTo("**missed**");
        assertThat(Fmt.atMost(25, 25)).isEqualTo("met");
        assertThat(Fmt.atMost(25.1, 25)).isEqualTo("**missed**");
    }

    @Test
    void measuredRunsGivePercentilesRatesAndErrors() {
        Histogram h = new Histogram(3);
        for (int i = 1; i <= 1000; i++) {
            h.recordValue(i * 1000L); // 1 ms … 1000 ms
        }
        Measured m = new Measured(
                "x",
                8,
                Map.of("202", 990L, "409 SOLD_OUT", 5L, "503 UNAVAILABLE", 3L, Measured.NO_ANSWER, 2L),
                h,
                Duration.ofSeconds(4));
        assertThat(m.total()).isEqualTo(1000);
        assertThat(m.perSecond()).isEqualTo(250.0);
        assertThat(m.millis(50)).isBetween(499.0, 501.0);
        assertThat(m.millis(99)).isBetween(989.0, 991.0);
        assertThat(m.millis(99.9)).isBetween(998.0, 1000.5);
        assertThat(m.errors()).isEqualTo(5); // 503 and unanswered; a sold-out answer is not an error
    }

    @Test
    void theReportSetsEachFigureAgainstItsCeilingAndTarget() {
        Results r = new Results();
        r.setting("mode", "quick");
        r.crowd = run(
                "crowd over HTTP",
                1000,
                266_000,
                20,
                80,
                Map.of("202", 100_000L, "200", 66_000L, "409 SOLD_OUT", 100_000L));
        r.rawRedisCrowd = run(
                "raw script, crowd",
                1000,
                266_000,
                5,
                20,
                Map.of("admitted", 100_000L, "asked before", 66_000L, "sold out", 100_000L));
        r.saturation = run("saturation over HTTP", 256, 200_000, 20, 15, Map.of("202", 200_000L));
        r.rawRedisSaturation = run("raw script, saturation", 256, 200_000, 5, 5, Map.of("admitted", 200_000L));
        r.reference = run("reference server, closed loop", 256, 200_000, 16, 12, Map.of("202", 200_000L));
        r.rawUnpipelined = run("raw script, not pipelined", 256, 200_000, 8, 8, Map.of("admitted", 200_000L));
        r.apiCpuMicrosPerAdmission = 150;
        r.referenceCpuMicrosPerAdmission = 80;
        r.openShare = 0.7;
        r.open = new OpenModel.Result(
                run("open model 10000/s", 1000, 600_000, 60, 30, Map.of("202", 600_000L)),
                10_000,
                Duration.ofMillis(2),
                0);
        r.openCpu = new OpenModelPhase.Cpu(160, 100, 45);
        r.openReference = new OpenModel.Result(
                run("reference server, open model 10000/s", 1000, 600_000, 60, 20, Map.of("202", 600_000L)),
                10_000,
                Duration.ofMillis(3),
                0);
        r.openReferenceCpu = new OpenModelPhase.Cpu(100, 70, -1);
        r.hold = run("1000 connections held", 1000, 600_000, 60, 90, Map.of("202", 599_999L, Measured.NO_ANSWER, 1L));
        r.loadgenLocal = run("client vs in-JVM Netty server", 1000, 200_000, 4, 10, Map.of("200", 200_000L));
        r.growth.add(new Results.GrowthPoint(
                1_000,
                run("a", 256, 20_000, 2, 10, Map.of("202", 20_000L)),
                run("s", 256, 50_000, 2, 5, Map.of("200", 50_000L)),
                10L << 20));
        r.growth.add(new Results.GrowthPoint(
                1_000_000,
                run("a", 256, 20_000, 2, 20, Map.of("202", 20_000L)),
                run("s", 256, 50_000, 4, 5, Map.of("200", 50_000L)),
                200L << 20));
        r.issuance = new Results.Issuance(7, 1_000_020, 25, 1_000_020, 0, 20, 20, "500000/s", List.of());
        r.rawInsert = new Results.RawInsert(1_000_000, 1000, 8);
        r.memory.add(new Results.MemoryPeak("api", "crowd", 300L << 20, 600L << 20, 650L << 20));
        r.notes.add("a note");

        String md = Report.markdown(r, List.of("throughput.png"));

        // crowd: 13,300/s against 53,200/s raw
        assertThat(md).contains("**0.25** of the ceiling (13,300/s / 53,200/s)");
        // saturation: 10,000 admissions/s, the target but not the stretch
        assertThat(md).contains("| saturation, 256 connections, admissions/s | ≥ 10,000/s | 10,000/s | met |");
        assertThat(md)
                .contains(
                        "| saturation, 256 connections, admissions/s, stretch | ≥ 12,000/s | 10,000/s | **missed** |");
        // the reference server in the same run: 12,500/s, so the api does 0.80 of it
        assertThat(md).contains("| api / reference server, same run | ≥ 0.8 | 0.80 (10,000/s / 12,500/s) | met |");
        assertThat(md)
                .contains("| api CPU per admission (utime + stime over the saturation run) | ≤ 130 µs | 150 µs "
                        + "| **missed** |");
        assertThat(md).contains("| 12,500/s | 0.80 | 80 µs | n/a |");
        // not pipelined 25,000/s; pipelined 40,000/s, information only
        assertThat(md).contains("| raw script, one in flight per connection (no HTTP, no token) | 25,000/s | 0.40 |");
        assertThat(md).contains("(information only: no server can pipeline HTTP clients) | 40,000/s | 0.25 |");
        assertThat(md).contains("| open model at 10,000/s (70% of saturation), p99 | ≤ 25 ms | 30.0 ms | **missed** |");
        // the same open model against the reference server: information beside the target, in every table
        assertThat(md)
                .contains("| reference server, the same open model at 10,000/s, p99 | information | 20.0 ms | – |");
        assertThat(md).contains("| reference server, open model 10000/s | 1000 | 600,000 | 10,000/s |");
        assertThat(md).contains("Open model against the reference server: 600,000 requests offered at 10,000/s");
        assertThat(md).contains("| open model, api | 160 µs | 100 µs | 45 µs |");
        // its p99 (20 ms) meets the target, so the report does not blame the machine
        assertThat(md).doesNotContain("misses the open model's latency targets too");
        assertThat(md).contains("| open model, reference server | 100 µs | 70 µs | n/a |");
        assertThat(md)
                .contains("| 1000 connections held 60.0 s | no errors, no time-outs | 1 errors of 600,000 | "
                        + "**missed** |");
        // issuance 50,000/s against 125,000/s raw: 40%, exactly the target
        assertThat(md).contains("50,000/s = 40% | met |");
        assertThat(md).contains("Issuance against the raw insert rate: **0.40**.");
        // growth: p99 doubled, reads halved
        assertThat(md).contains("2.00× | **missed** |");
        assertThat(md)
                .contains("1,000,000 queued: admission p99 2.00× the smallest queue's, status reads 0.50× its "
                        + "rate: **not flat**.");
        assertThat(md).contains("the client is not what limits the crowd");
        assertThat(md).contains("| api | crowd | 300 MiB | 600 MiB | 650 MiB |");
        assertThat(md).contains("![throughput](throughput.png)");
        assertThat(md).contains("- a note");
        assertThat(md).contains("200: 66,000, 202: 100,000, 409 SOLD_OUT: 100,000");
    }

    @Test
    void theSlowClientsRunIsSetAgainstTheSameModelAloneInTheSameRun() {
        Results r = new Results();
        r.slowAlone = new OpenModel.Result(
                run("alone", 1000, 6_000, 20, 4, Map.of("202", 6_000L)), 300, Duration.ofMillis(1), 0);
        r.slowBeside = new OpenModel.Result(
                run("beside 1000 slow clients", 1000, 6_000, 20, 5, Map.of("202", 6_000L)),
                300,
                Duration.ofMillis(1),
                0);
        r.slowHeld = new SlowHolders.Stats(1000, 990, 4_000, 4_000, 0);

        String md = Report.markdown(r, List.of());

        assertThat(md)
                .contains("| other members' admission p99 beside 1,000 slow clients | ≤ 1.5 × p99 alone (6.00 ms),"
                        + " no errors | 5.00 ms = 1.25×, 0 errors | met |");
        assertThat(md).contains("## Slow clients: bodies that never come");
        assertThat(md)
                .contains("4,000 closed by the api and opened again (4,000 answered 408 first, 0 answered"
                        + " otherwise)");
    }

    @Test
    void theOverloadRunIsSetAgainstTheSaturationPhaseOfTheSameRun() {
        Results r = new Results();
        // saturation: 100,000 admissions in 20 s = 5,000/s
        r.saturation = run("saturation over HTTP", 256, 100_000, 20, 40, Map.of("202", 100_000L));
        // twice that for 10 s: 54,000 places in line (5,400/s), 45,990 refused, 10 never answered; p99 60 ms
        r.overloadBase = 5_000;
        r.overload = new OpenModel.Result(
                run(
                        "overload 10000/s",
                        1000,
                        100_000,
                        10,
                        60,
                        Map.of("202", 54_000L, "503 UNAVAILABLE", 45_990L, Measured.NO_ANSWER, 10L)),
                10_000,
                Duration.ofMillis(3),
                0);

        String md = Report.markdown(r, List.of());

        assertThat(md)
                .contains("| overload at 10,000/s, every request answered | 0 connection errors or time-outs | 10 of "
                        + "100,000 | **missed** |");
        assertThat(md).contains("| overload at 10,000/s, p99 of all answers | ≤ 100 ms | 60.0 ms | met |");
        assertThat(md)
                .contains("| overload at 10,000/s, admissions/s | ≥ saturation's (5,000/s) | 5,400/s = 108% | met |");
        assertThat(md).contains("| 503 UNAVAILABLE (refused, Retry-After) | 45,990 | 46% |");
        assertThat(md).contains("An open model at 10,000/s (2.00 × 5,000/s admissions)");
        assertThat(md).doesNotContain("Caution:");

        r.saturation =
                run("saturation over HTTP", 256, 100_000, 20, 40, Map.of("202", 25_000L, "503 UNAVAILABLE", 75_000L));
        assertThat(Report.markdown(r, List.of()))
                .contains("Caution: 75% of the saturation phase's answers were 503 refusals.");
    }

    @Test
    void aReferenceServerThatMissesTheLatencyTargetsToo_isSaidToShowTheMachinesTail() {
        Results r = new Results();
        r.open = new OpenModel.Result(
                run("open model 4000/s", 1000, 240_000, 60, 600, Map.of("202", 240_000L)),
                4_000,
                Duration.ofMillis(50),
                0);
        r.openReference = new OpenModel.Result(
                run("reference server, open model 4000/s", 1000, 240_000, 60, 500, Map.of("202", 240_000L)),
                4_000,
                Duration.ofMillis(60),
                0);

        assertThat(Report.markdown(r, List.of()))
                .contains("| open model at 4,000/s, p99 | ≤ 25 ms | 600 ms | **missed** |")
                .contains("| reference server, the same open model at 4,000/s, p99 | information | 500 ms | – |")
                .contains("The reference server, with no Spring, misses the open model's latency targets too");
    }

    @Test
    void phasesThatDidNotRunSaySo() {
        String md = Report.markdown(new Results(), List.of());
        assertThat(md).contains("No target could be evaluated");
        assertThat(md).contains("## 4. End-to-end issuance\n\nNot measured");
        assertThat(md).doesNotContain("## Charts");
    }

    @Test
    void theWaitEstimatesHaveASectionOnlyWhenMeasured() {
        Results r = new Results();
        assertThat(Report.markdown(r, List.of())).doesNotContain("## Wait estimates");

        r.estimates.add("**steady, 100/s** (invariants held):");
        r.estimates.add("  - precise wait estimates (estimatedWaitMillis): at admission p50 1.6%, p90 6.6%");

        assertThat(Report.markdown(r, List.of()))
                .contains("## Wait estimates\n\n`|estimated - actual| / actual`")
                .contains("**steady, 100/s** (invariants held):\n  - precise wait estimates");
    }

    @Test
    void tableCellsKeepTheirPipesEscaped() {
        Results r = new Results();
        r.setting("a|b", "c");
        assertThat(Report.markdown(r, List.of())).contains("| a\\|b | c |");
    }

    @Test
    void aFairStartsDrawIsReportedWithWhenMembersKnewAndWhenItWasRecorded() {
        Results r = new Results();
        r.draw = new Results.Draw(
                7,
                1_000_000,
                100_000,
                2.4,
                6.31,
                17.85,
                "MADE",
                run("status reads while the draw is made", 64, 90_000, 15, 4, Map.of("200", 90_000L)));

        String md = Report.markdown(r, List.of());

        assertThat(md)
                .contains("## A fair start's draw")
                .contains("1,000,000 entrants in the window")
                .contains("100,000 places")
                .contains("| the draw made: members know their outcome | " + Fmt.seconds(6.31) + " |")
                .contains("| the draw recorded in MySQL: the seed published, bin/verify-draw can run | "
                        + Fmt.seconds(17.85) + " |")
                .contains("Status reads while the draw was made: 90,000 in 15.0 s");
        assertThat(Report.markdown(new Results(), List.of())).doesNotContain("fair start's draw");
    }
}
