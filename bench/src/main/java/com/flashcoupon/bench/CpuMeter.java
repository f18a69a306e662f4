package com.flashcoupon.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A process's CPU time (user plus system, from {@code /proc/<pid>/stat}) between two moments: two file reads, nothing
 * asked of the process itself. Resolution is the kernel's clock tick (10 ms), so a run of a few seconds or more.
 */
final class CpuMeter {

    private final long pid;
    private double start = -1;
    private double used = -1;

    CpuMeter(long pid) {
        this.pid = pid;
    }

    void start() {
        start = seconds(pid);
    }

    void stop() {
        double end = seconds(pid);
        used = start >= 0 && end >= 0 ? end - start : -1;
    }

    /** CPU seconds between start and stop, or -1 when they could not be read. */
    double used() {
        return used;
    }

    /** Microseconds of CPU per unit of work (per admission), or -1 when unknown or nothing was done. */
    double microsPer(long count) {
        return perUnit(used, count);
    }

    static double perUnit(double cpuSeconds, long count) {
        return cpuSeconds < 0 || count <= 0 ? -1 : cpuSeconds * 1e6 / count;
    }

    /** The process's CPU seconds so far, or -1 when it cannot be read (no such process, not this machine's). */
    static double seconds(long pid) {
        if (pid <= 0) {
            return -1;
        }
        try {
            return MemorySampler.cpuSeconds(Files.readString(Path.of("/proc/" + pid + "/stat")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
