package com.flashcoupon.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Samples the apps' memory once a second: resident set size and its high-water mark from {@code /proc/<pid>/status}
 * (VmRSS, VmHWM), and heap used from {@code /actuator/prometheus} (the sum of {@code jvm_memory_used_bytes} over the
 * heap's pools).
 */
final class MemorySampler implements AutoCloseable {

    /** An app to watch: its name, its pid (or -1 when unknown) and its base URL. */
    record App(String name, long pid, String baseUrl) {}

    record Point(double seconds, long heapBytes, long rssBytes, long hwmBytes) {}

    private final List<App> apps;
    private final long startNanos;
    private final Map<String, List<Point>> series = new ConcurrentHashMap<>();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final Thread thread;
    private volatile boolean running = true;

    MemorySampler(List<App> apps, long startNanos) {
        this.apps = apps;
        this.startNanos = startNanos;
        apps.forEach(app -> series.put(app.name(), new CopyOnWriteArrayList<>()));
        this.thread = Thread.ofPlatform().daemon().name("memory-sampler").unstarted(this::loop);
    }

    void start() {
        thread.start();
    }

    private void loop() {
        while (running) {
            long next = System.nanoTime() + 1_000_000_000L;
            for (App app : apps) {
                series.get(app.name()).add(sample(app));
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

    private Point sample(App app) {
        long rss = -1;
        long hwm = -1;
        if (app.pid() > 0) {
            try {
                for (String line : Files.readAllLines(Path.of("/proc/" + app.pid() + "/status"))) {
                    if (line.startsWith("VmRSS:")) {
                        rss = kilobytes(line);
                    } else if (line.startsWith("VmHWM:")) {
                        hwm = kilobytes(line);
                    }
                }
            } catch (IOException | RuntimeException e) {
                // the process is gone or not ours to read: leave -1
            }
        }
        long heap = -1;
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create(app.baseUrl() + "/actuator/prometheus"))
                            .timeout(Duration.ofSeconds(3))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() == 200) {
                heap = heapUsed(response.body());
            }
        } catch (IOException | RuntimeException e) {
            // not answering this second: leave -1
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new Point((System.nanoTime() - startNanos) / 1e9, heap, rss, hwm);
    }

    static long kilobytes(String statusLine) {
        String digits = statusLine.replaceAll("[^0-9]", "");
        return digits.isEmpty() ? -1 : Long.parseLong(digits) * 1024;
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

    /** Samples of one app taken between two moments (seconds since the run started). */
    List<Point> between(String app, double from, double to) {
        List<Point> points = new ArrayList<>();
        for (Point p : series.getOrDefault(app, List.of())) {
            if (p.seconds() >= from && p.seconds() <= to) {
                points.add(p);
            }
        }
        return points;
    }

    Results.MemoryPeak peak(String app, String phase, double from, double to) {
        List<Point> points = between(app, from, to);
        long heap = points.stream().mapToLong(Point::heapBytes).max().orElse(-1);
        long rss = points.stream().mapToLong(Point::rssBytes).max().orElse(-1);
        long hwm = points.stream().mapToLong(Point::hwmBytes).max().orElse(-1);
        return new Results.MemoryPeak(app, phase, heap, rss, hwm);
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
