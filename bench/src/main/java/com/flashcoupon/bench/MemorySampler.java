package com.flashcoupon.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.ToLongFunction;

/**
 * Samples the apps once a second from the kernel, which costs them nothing: resident set size and its high-water
 * mark from {@code /proc/<pid>/status} (VmRSS, VmHWM), CPU time from {@code /proc/<pid>/stat} (utime + stime). Heap
 * used comes from {@code /actuator/prometheus} (the sum of {@code jvm_memory_used_bytes} over the heap's pools), only
 * every {@value #HEAP_EVERY} seconds and never while a measured phase runs ({@link #quiet}): a scrape is work for the
 * app being measured.
 */
final class MemorySampler implements AutoCloseable {

    /** Seconds between two heap scrapes. */
    static final int HEAP_EVERY = 10;

    /** Clock ticks per second of /proc/<pid>/stat's times: USER_HZ, 100 on every Linux architecture Java runs on. */
    private static final double TICKS_PER_SECOND = 100;

    /** An app to watch: its name, its pid (or -1 when unknown) and its base URL. */
    record App(String name, long pid, String baseUrl) {}

    /** One sample; -1 where a value could not be read (or, for the heap, was not scraped this second). */
    record Point(double seconds, long heapBytes, long rssBytes, long hwmBytes, double cpuSeconds) {}

    private final List<App> apps;
    private final long startNanos;
    private final Map<String, List<Point>> series = new ConcurrentHashMap<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread thread;
    private volatile boolean running = true;
    /** While set, no heap scrape: a measured phase runs, and only the kernel's counters are read. */
    private volatile boolean quiet;

    MemorySampler(List<App> apps, long startNanos) {
        this.apps = apps;
        this.startNanos = startNanos;
        apps.forEach(app -> series.put(app.name(), new CopyOnWriteArrayList<>()));
        this.thread = Thread.ofPlatform().daemon().name("memory-sampler").unstarted(this::loop);
    }

    /** Leaves the apps alone (no HTTP scrape) while {@code quiet}; /proc is still read, which costs them nothing. */
    void quiet(boolean quiet) {
        this.quiet = quiet;
    }

    void start() {
        thread.start();
    }

    private void loop() {
        for (long second = 0; running; second++) {
            long next = System.nanoTime() + 1_000_000_000L;
            for (App app : apps) {
                series.get(app.name()).add(sample(app, !quiet && second % HEAP_EVERY == 0));
            }
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    Thread.sleep(Duration.ofNanos(wait));
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }

    private Point sample(App app, boolean withHeap) {
        long rss = -1;
        long hwm = -1;
        double cpu = -1;
        if (app.pid() > 0) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + app.pid() + "/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        rss = kilobytes(line);
                    } else if (line.startsWith("VmHWM:")) {
                        hwm = kilobytes(line);
                    }
                }
                cpu = cpuSeconds(Files.readString(Path.of("/proc/" + app.pid() + "/stat")));
            } catch (IOException | RuntimeException e) {
                // the process is gone or not ours to read: leave -1
            }
        }
        long heap = withHeap ? heap(app) : -1;
        return new Point((System.nanoTime() - startNanos) / 1e9, heap, rss, hwm, cpu);
    }

    private long heap(App app) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(app.baseUrl() + "/actuator/prometheus"))
                            .timeout(Duration.ofSeconds(3))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? heapUsed(response.body()) : -1;
        } catch (IOException | RuntimeException e) {
            return -1; // not answering this time
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    static long kilobytes(String statusLine) {
        String digits = statusLine.replaceAll("[^0-9]", "");
        return digits.isEmpty() ? -1 : Long.parseLong(digits) * 1024;
    }

    /** User plus system CPU time from a {@code /proc/<pid>/stat} line (fields 14 and 15; the name may hold spaces). */
    static double cpuSeconds(String stat) {
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / TICKS_PER_SECOND;
    }

    /** The sum of {@code jvm_memory_used_bytes{area="heap",...}} in a Prometheus text exposition; -1 when absent. */
    static long heapUsed(String exposition) {
        double sum = 0;
        boolean found = false;
        for (String line : exposition.split("\n")) {
            if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
                String value = line.substring(line.lastIndexOf(' ') + 1).trim();
                try {
                    sum += Double.parseDouble(value);
                    found = true;
                } catch (NumberFormatException e) {
                    // a malformed line: skip it
                }
            }
        }
        return found ? (long) sum : -1;
    }

    /** The peaks of one app's samples taken between two moments (seconds since the run started). */
    Results.MemoryPeak peak(String app, String phase, double from, double to) {
        List<Point> points = all(app).stream()
                .filter(p -> p.seconds() >= from && p.seconds() <= to)
                .toList();
        long heap = points.stream().mapToLong(Point::heapBytes).max().orElse(-1);
        long rss = points.stream().mapToLong(Point::rssBytes).max().orElse(-1);
        long hwm = points.stream().mapToLong(Point::hwmBytes).max().orElse(-1);
        return new Results.MemoryPeak(app, phase, heap, rss, hwm);
    }

    /** CPU seconds the app used over its samples, or -1 when its times could not be read. */
    double cpuUsed(String app) {
        double[] cpu = all(app).stream()
                .mapToDouble(Point::cpuSeconds)
                .filter(c -> c >= 0)
                .toArray();
        return cpu.length < 2 ? -1 : cpu[cpu.length - 1] - cpu[0];
    }

    /** One value of one app's samples as a chart series in MiB, leaving out the samples without it. */
    List<Results.Sample> series(String app, ToLongFunction<Point> bytes) {
        return all(app).stream()
                .filter(p -> bytes.applyAsLong(p) >= 0)
                .map(p -> new Results.Sample(p.seconds(), bytes.applyAsLong(p) / (1024.0 * 1024.0)))
                .toList();
    }

    List<App> apps() {
        return apps;
    }

    List<Point> all(String app) {
        return List.copyOf(series.getOrDefault(app, List.of()));
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
