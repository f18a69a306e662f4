package com.flashcoupon.bench;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Everything one run of bin/bench measured; a phase that failed or was skipped stays null and says why in notes. */
final class Results {

    /** Where and how the run happened: printed at the top of the report. */
    record Setting(String name, String value) {}

    /** The apps' memory while one phase ran: peaks of the sampled heap and RSS, and the kernel's high-water mark. */
    record MemoryPeak(String app, String phase, long heapBytes, long rssBytes, long hwmBytes) {}

    /** One point of a sampled series: seconds since the run started, a value. */
    record Sample(double seconds, double value) {}

    /** Growth: the queue's size, then admissions and status reads measured with that many already queued. */
    record GrowthPoint(long queued, Measured admissions, Measured statusReads, long redisUsedBytes) {}

    /** End-to-end issuance of one coupon whose queue was filled while its drain was paused. */
    record Issuance(
            long couponId,
            long queued,
            double fillSeconds,
            long issued,
            long failed,
            double drainSeconds,
            long issuedBefore,
            String workerLimit,
            List<Sample> issuedOverTime) {

        /** Wallets written after the rate was raised, per second of the drain. */
        double walletsPerSecond() {
            return drainSeconds > 0 ? (issued - issuedBefore) / drainSeconds : 0;
        }
    }

    /**
     * A fair start's draw (issue 23): entrants and places, how long the fill took, when the draw was made in Redis
     * (members know) and recorded in MySQL (seed published), in seconds after the window ended (-1: not seen within
     * ten minutes), the admin view's draw state at the end, and entrants' status reads meanwhile.
     */
    record Draw(
            long couponId,
            int entrants,
            int places,
            double fillSeconds,
            double madeSeconds,
            double recordedSeconds,
            String finalState,
            Measured statusReads) {}

    /** The raw MySQL rate: rows inserted in multi-row INSERT IGNORE batches, one commit per batch. */
    record RawInsert(long rows, int batch, double seconds) {
        double rowsPerSecond() {
            return seconds > 0 ? rows / seconds : 0;
        }
    }

    Instant startedAt = Instant.now();
    double totalSeconds;
    final List<Setting> settings = new ArrayList<>();
    final List<String> notes = new ArrayList<>();

    /** The estimates phase's lines, as the crowd printed them (issue 13). */
    final List<String> estimates = new ArrayList<>();

    Measured warmup;
    Measured loadgenLocal;
    Measured loadgenLiveness;
    Measured rawRedisCrowd;
    Measured rawRedisSaturation;
    Measured crowd;
    Measured saturation;
    /** The reference server of issue 12 (Reactor Netty, Nimbus, the same script; no Spring) at saturation's concurrency. */
    Measured reference;
    /** The raw script at saturation's concurrency, one script in flight per connection: no pipelining. */
    Measured rawUnpipelined;
    /** CPU microseconds per admission over the saturation runs, from /proc (-1: not measured). */
    double apiCpuMicrosPerAdmission = -1;

    double referenceCpuMicrosPerAdmission = -1;
    /** Redis' own CPU per admission during the api's run and during the reference's (-1 when Redis is not local). */
    double redisCpuMicrosPerAdmissionApi = -1;

    double redisCpuMicrosPerAdmissionReference = -1;
    String referenceJvmOptions = "";
    /** Open model: the share of the saturation's admissions/s it offers, when its rate was measured rather than set. */
    double openShare;

    OpenModel.Result open;
    OpenModelPhase.Cpu openCpu;
    int openTargetRate;
    /** The same open model against the reference server: the most the api's latency could be on this machine. */
    OpenModel.Result openReference;

    OpenModelPhase.Cpu openReferenceCpu;
    /** The overload phase: an open model at a multiple of {@link #overloadBase}. */
    OpenModel.Result overload;
    /** Admissions per second the overload rate was a multiple of: the saturation phase's, or --overload-rate's. */
    double overloadBase;

    Measured hold;
    Draw draw;
    /** Issue 24: other members' admissions alone, then beside connections held with bodies that never come. */
    OpenModel.Result slowAlone;

    OpenModel.Result slowBeside;
    SlowHolders.Stats slowHeld;
    final List<GrowthPoint> growth = new ArrayList<>();
    Issuance issuance;
    RawInsert rawInsert;
    final List<MemoryPeak> memory = new ArrayList<>();
    /** Sampled series by name ("api heap", "api RSS", ...), in MiB over seconds since the run started. */
    final Map<String, List<Sample>> memorySeries = new LinkedHashMap<>();
    /** The phases' spans on the memory chart's time axis: name, start and end in seconds. */
    final List<String[]> phaseSpans = new ArrayList<>();

    /** The stampede phase: the naive clients' run and the Java client's, in that order (empty when it did not run). */
    final List<StampedePhase.Run> stampede = new ArrayList<>();

    void setting(String name, Object value) {
        settings.add(new Setting(name, String.valueOf(value)));
    }
}
