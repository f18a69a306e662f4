package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.engine.LiveStats;
import com.flashcoupon.loadgen.engine.ProgressListener;
import java.io.PrintStream;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Shows a run's progress on stderr: one line redrawn four times a second on a terminal, else a line every three
 * seconds. Done/total, requests per second over the last interval, counts by outcome.
 */
final class ProgressPrinter implements ProgressListener {

    private final ProgressMode mode;
    private final PrintStream err;
    private final String title;
    private ScheduledExecutorService timer;
    private long lastDone;
    private long lastNanos;

    ProgressPrinter(ProgressMode mode, PrintStream err, String title) {
        this.mode = mode;
        this.err = err;
        this.title = title;
    }

    @Override
    public void started(LiveStats live) {
        if (mode == ProgressMode.OFF) {
            return;
        }
        lastNanos = System.nanoTime();
        timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "loadgen-progress");
            thread.setDaemon(true);
            return thread;
        });
        long period = mode == ProgressMode.BAR ? 250 : 3_000;
        timer.scheduleAtFixedRate(() -> print(live, false), period, period, TimeUnit.MILLISECONDS);
    }

    @Override
    public void finished(LiveStats live) {
        if (timer == null) {
            return;
        }
        timer.shutdownNow();
        try {
            timer.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        print(live, true);
    }

    private synchronized void print(LiveStats live, boolean last) {
        long now = System.nanoTime();
        long done = live.done();
        double perSecond = last
                ? done / Math.max(1e-9, live.elapsed().toNanos() / 1e9)
                : (done - lastDone) / Math.max(1e-9, (now - lastNanos) / 1e9);
        lastDone = done;
        lastNanos = now;
        String text = line(title, done, live.total(), perSecond, live.outcomes());
        if (mode == ProgressMode.BAR) {
            err.print("\r" + text + "\033[K" + (last ? System.lineSeparator() : ""));
            err.flush();
        } else {
            err.println(text);
        }
    }

    static String line(String title, long done, long total, double perSecond, Map<String, Long> outcomes) {
        StringBuilder text = new StringBuilder(String.format(
                Locale.ROOT,
                "%s %s %,d/%,d  %,.0f/s",
                title,
                bar(total == 0 ? 1 : (double) done / total, 20),
                done,
                total,
                perSecond));
        Outcome.ordered(outcomes).forEach((outcome, count) -> {
            if (count > 0) {
                text.append(String.format(Locale.ROOT, "  %s: %,d", outcome, count));
            }
        });
        return text.toString();
    }

    /** {@code [#####.....]} with {@code width} cells, filled to {@code fraction} (clamped to 0 … 1). */
    static String bar(double fraction, int width) {
        int filled = (int) Math.round(Math.max(0, Math.min(1, fraction)) * width);
        return "[" + "#".repeat(filled) + ".".repeat(width - filled) + "]";
    }
}
