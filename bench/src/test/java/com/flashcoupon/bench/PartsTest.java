package com.flashcoupon.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.loadgen.Flags;
import com.flashcoupon.loadgen.crowd.CrowdPlan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartsTest {

    @Test
    void answersAreLabelledByStatusAndProblemCode() {
        assertThat(Labels.of(202, "{\"couponId\":1}")).isEqualTo("202");
        assertThat(Labels.of(409, "{\"type\":\"about:blank\",\"code\":\"SOLD_OUT\",\"status\":409}"))
                .isEqualTo("409 SOLD_OUT");
        assertThat(Labels.of(429, "{\"code\" : \"RATE_LIMITED\"}")).isEqualTo("429 RATE_LIMITED");
        assertThat(Labels.of(502, "<html>bad gateway</html>")).isEqualTo("502");
        assertThat(Labels.of(500, null)).isEqualTo("500");
    }

    @Test
    void theCrowdAsksEveryMemberOnceAndAThirdOfThemTwice() {
        CrowdPlan order = CrowdPlan.shuffled(3_000, 1.0 / 3, new java.util.Random(42));
        assertThat(order.size()).isEqualTo(4_000);
        assertThat(order.askingTwice()).isEqualTo(1_000);
        int[] asks = new int[3_000];
        for (int i = 0; i < order.size(); i++) {
            asks[order.memberAt(i)]++;
        }
        Set<Integer> counts = new HashSet<>();
        int twice = 0;
        for (int a : asks) {
            counts.add(a);
            twice += a == 2 ? 1 : 0;
        }
        assertThat(counts).containsOnly(1, 2);
        assertThat(twice).isEqualTo(1_000);
        // the same seed gives the same order
        assertThat(CrowdPlan.shuffled(3_000, 1.0 / 3, new java.util.Random(42)).memberAt(17))
                .isEqualTo(order.memberAt(17));
    }

    @Test
    void heapIsTheSumOfTheHeapPoolsAndCpuTimeUserPlusSystemTicks() throws Exception {
        String text = """
                # HELP jvm_memory_used_bytes The amount of used memory
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{area="heap",id="PS Eden Space"} 1.048576E7
                jvm_memory_used_bytes{area="heap",id="PS Old Gen"} 2.097152E7
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 9.9E7
                jvm_memory_used_bytes_other{area="heap"} 5
                """;
        assertThat(MemorySampler.heapUsed(text)).isEqualTo(31_457_280L);
        assertThat(MemorySampler.heapUsed("nothing here")).isEqualTo(-1);
        assertThat(MemorySampler.kilobytes("VmHWM:\t  524288 kB")).isEqualTo(512L * 1024 * 1024);
        // CPU time: fields 14 (utime) and 15 (stime) of /proc/<pid>/stat, after a name holding spaces and a ')'
        assertThat(MemorySampler.cpuSeconds("4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 566 0 0 20 0"))
                .isEqualTo(18.0);
        assertThat(MemorySampler.cpuSeconds(Files.readString(Path.of("/proc/self/stat"))))
                .isPositive();
    }

    @Test
    void chartsAreDrawnAsPngFiles(@TempDir Path dir) throws Exception {
        Results r = new Results();
        r.crowd = ReportTest.run("crowd over HTTP", 1000, 1000, 1, 50, Map.of("202", 1000L));
        r.rawRedisCrowd = ReportTest.run("raw script, crowd", 1000, 1000, 0.25, 5, Map.of("admitted", 1000L));
        r.growth.add(new Results.GrowthPoint(
                1_000, r.crowd, ReportTest.run("s", 256, 10, 1, 5, Map.of("200", 10L)), 1 << 20));
        r.growth.add(new Results.GrowthPoint(
                100_000, r.crowd, ReportTest.run("s", 256, 10, 1, 6, Map.of("200", 10L)), 2 << 20));
        r.issuance = new Results.Issuance(
                1,
                10,
                1,
                10,
                0,
                2,
                2,
                "x",
                List.of(new Results.Sample(0, 0), new Results.Sample(1, 5), new Results.Sample(2, 10)));
        r.rawInsert = new Results.RawInsert(10, 1000, 0.5);
        r.memorySeries.put("api RSS", List.of(new Results.Sample(0, 300), new Results.Sample(1, 310)));

        List<String> files = Charts.write(r, dir);

        assertThat(files)
                .containsExactly(
                        "throughput.png",
                        "latency.png",
                        "growth-latency.png",
                        "growth-rates.png",
                        "issuance.png",
                        "memory.png");
        for (String file : files) {
            byte[] png = Files.readAllBytes(dir.resolve(file));
            assertThat(png.length).isGreaterThan(1000);
            assertThat(png[1]).isEqualTo((byte) 'P'); // \x89PNG
        }
    }

    @Test
    void theChosenPhasesRunInTheirFixedOrder() {
        Flags flags = Flags.parse(List.of("--phases", "issuance,hold,crowd"), BenchSettings.OPTIONS, Map.of());
        BenchSettings s = BenchSettings.from(true, flags, Map.of(), Path.of("/repo"));
        assertThat(BenchMain.PHASES.stream().filter(step -> step.wanted(s)).map(BenchMain.Step::name))
                .containsExactly("crowd", "hold", "growth and issuance");
    }

    @Test
    void theReferenceServersOpenModelRunsAtTheRateTheApisRan() {
        Flags flags = Flags.parse(List.of("--phases", "open,open-reference"), BenchSettings.OPTIONS, Map.of());
        BenchSettings s = BenchSettings.from(true, flags, Map.of(), Path.of("/repo"));
        BenchRun b = new BenchRun(s, new java.io.PrintStream(java.io.OutputStream.nullOutputStream()));

        assertThatThrownBy(() -> OpenModelPhase.offeredRate(b, "open-reference"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("--phases saturation,open-reference");

        // 70% of the saturation phase's 5,000 admissions/s
        b.r.saturation = ReportTest.run("saturation", 256, 100_000, 20, 10, Map.of("202", 100_000L));
        assertThat(OpenModelPhase.offeredRate(b, "open-reference")).isEqualTo(3_500);

        // once the api's open model ran, the reference gets exactly its rate
        b.r.openTargetRate = 3_333;
        assertThat(OpenModelPhase.offeredRate(b, "open-reference")).isEqualTo(3_333);
        assertThat(BenchMain.PHASES.stream().filter(step -> step.wanted(s)).map(BenchMain.Step::name))
                .containsExactly("open", "open-reference");
    }

    @Test
    void theQuickRunIsSmallAndEverySizeIsAFlag() {
        Flags quick = Flags.parse(
                List.of("--members", "1000", "--growth-sizes", "100000,1000"), BenchSettings.OPTIONS, Map.of());
        BenchSettings s = BenchSettings.from(true, quick, Map.of(), Path.of("/repo"));
        assertThat(s.members()).isEqualTo(1000);
        assertThat(s.crowdStock()).isEqualTo(500);
        assertThat(s.growthSizes()).containsExactly(1000, 100000);
        assertThat(s.warmup()).isEqualTo(Duration.ofSeconds(20));
        // the open model's rate is measured in the run (70% of saturation) unless --open-rate sets it
        assertThat(s.openRate()).isZero();
        assertThat(s.openShare()).isEqualTo(0.7);
        assertThat(s.script()).isEqualTo(Path.of("/repo/api/src/main/resources/scripts/admit.lua"));

        BenchSettings full = BenchSettings.from(
                false, Flags.parse(List.of(), BenchSettings.OPTIONS, Map.of()), Map.of(), Path.of("/repo"));
        assertThat(full.members()).isEqualTo(200_000);
        assertThat(full.concurrency()).isEqualTo(1000);
        assertThat(full.saturationConcurrency()).isEqualTo(256);
        assertThat(full.openRate()).isZero();
        assertThat(full.growthSizes()).containsExactly(1_000, 100_000, 1_000_000);
        assertThat(full.issueCoupons()).isEqualTo(1_000_000);
        // tokens for the open model are minted once its rate is known; the pool covers saturation and the crowd
        assertThat(full.tokenPool()).isEqualTo(200_000);
        BenchSettings fixed = BenchSettings.from(
                false,
                Flags.parse(List.of("--open-rate", "5000", "--open-duration", "200s"), BenchSettings.OPTIONS, Map.of()),
                Map.of(),
                Path.of("/repo"));
        assertThat(fixed.openTotal()).isEqualTo(1_000_000);
        assertThat(fixed.tokenPool()).isEqualTo(1_000_000);
    }

    @Test
    void theOpenModelOffersSeventyPercentOfTheSaturationMeasuredInTheSameRun() {
        assertThat(OpenModelPhase.rate(0, 0.7, 10_000)).isEqualTo(7_000);
        assertThat(OpenModelPhase.rate(0, 0.7, 5_181.4)).isEqualTo(3_627);
        assertThat(OpenModelPhase.rate(2_000, 0.7, 10_000)).isEqualTo(2_000); // --open-rate wins
        assertThat(OpenModelPhase.rate(0, 0.7, 0)).isZero(); // no saturation measured: the phase refuses to guess
    }

    @Test
    void cpuPerAdmissionIsTheProcessTimeOverTheAdmissions() throws Exception {
        // 1.31 s of CPU for 10,000 admissions: 131 µs each
        assertThat(CpuMeter.perUnit(1.31, 10_000)).isCloseTo(131.0, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(CpuMeter.perUnit(-1, 10_000)).isEqualTo(-1); // not readable
        assertThat(CpuMeter.perUnit(1.31, 0)).isEqualTo(-1); // nothing admitted
        assertThat(CpuMeter.seconds(-1)).isEqualTo(-1);
        // this JVM's own time, read from /proc, grows with work
        long self = ProcessHandle.current().pid();
        double before = CpuMeter.seconds(self);
        // spin for 150 ms of this thread's own CPU time, however busy the machine is
        var threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long spin = threads.getCurrentThreadCpuTime() + 150_000_000L;
        long x = 0;
        while (threads.getCurrentThreadCpuTime() < spin) {
            x += Long.numberOfTrailingZeros(x + System.nanoTime());
        }
        assertThat(x).isNotNegative();
        assertThat(CpuMeter.seconds(self)).isGreaterThanOrEqualTo(before + 0.1);
        assertThat(Fmt.micros(131.4)).isEqualTo("131 µs");
        assertThat(Fmt.micros(-1)).isEqualTo("n/a");
    }

    @Test
    void theReferenceServerRunsWithTheApisJvmOptions() {
        String cmdline = String.join(
                "\0",
                "/usr/lib/jvm/bin/java",
                "-Xms1g",
                "-Xmx1g",
                "-Xmn640m",
                "-XX:+UseParallelGC",
                "-Dserver.port=8080",
                "-jar",
                "/repo/api/target/api-exec.jar",
                "-Xfake");
        assertThat(ReferenceProcess.jvmOptions(cmdline))
                .containsExactly("-Xms1g", "-Xmx1g", "-Xmn640m", "-XX:+UseParallelGC");
    }

    @Test
    void redisUrlsAreComparedAndPlaced() {
        assertThat(BenchMain.sameRedis("redis://127.0.0.1:6391", "redis://127.0.0.1:6391/"))
                .isTrue();
        assertThat(BenchMain.sameRedis("redis://127.0.0.1:6379", "redis://127.0.0.1:6391"))
                .isFalse();
        assertThat(BenchMain.local("redis://127.0.0.1:6391")).isTrue();
        assertThat(BenchMain.local("redis://localhost")).isTrue();
        assertThat(BenchMain.local("redis://redis.internal:6379")).isFalse();
    }
}
