package com.flashcoupon.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** The report's PNG charts (XChart), each written only when its phase produced figures. */
final class Charts {

    private static final int WIDTH = 960;
    private static final int HEIGHT = 540;

    private Charts() {}

    /** Writes the charts into {@code dir}; returns their file names in the report's order. */
    static List<String> write(Results r, Path dir) throws IOException {
        List<String> files = new ArrayList<>();
        List<Measured> runs = new ArrayList<>();
        for (Measured m : new Measured[] {
            r.loadgenLocal, r.loadgenLiveness, r.rawRedisCrowd, r.crowd, r.rawRedisSaturation, r.saturation, r.hold
        }) {
            if (m != null) {
                runs.add(m);
            }
        }
        if (r.overload != null) {
            runs.add(r.overload.measured());
        }
        if (r.open != null) {
            runs.add(r.open.measured());
        }
        if (!runs.isEmpty()) {
            CategoryChart throughput = category("Requests per second", "per second");
            throughput.getStyler().setLegendVisible(false);
            throughput.addSeries(
                    "per second",
                    runs.stream().map(Measured::label).toList(),
                    runs.stream().map(m -> (Number) m.perSecond()).toList());
            files.add(save(throughput, dir, "throughput"));

            List<Measured> http = runs.stream()
                    .filter(m -> m.latencyMicros().getTotalCount() > 0)
                    .toList();
            CategoryChart latency = category("Latency percentiles (log scale)", "milliseconds");
            latency.getStyler().setYAxisLogarithmic(true);
            latency.getStyler().setYAxisMin(0.1);
            List<String> labels = http.stream().map(Measured::label).toList();
            for (double p : new double[] {50, 99, 99.9}) {
                latency.addSeries(
                        "p" + (p == Math.floor(p) ? Integer.toString((int) p) : Double.toString(p)),
                        labels,
                        http.stream()
                                .map(m -> (Number) Math.max(0.01, m.millis(p)))
                                .toList());
            }
            files.add(save(latency, dir, "latency"));
        }
        if (!r.growth.isEmpty()) {
            XYChart growth = xy(
                    "Growth: admission p99 and status reads against the queue's size",
                    "queued requests",
                    "admission p99 (ms)");
            growth.getStyler().setXAxisLogarithmic(true);
            double[] x = r.growth.stream().mapToDouble(g -> g.queued()).toArray();
            growth.addSeries(
                    "admission p99 (ms)",
                    x,
                    r.growth.stream()
                            .mapToDouble(g -> g.admissions().millis(99))
                            .toArray());
            growth.addSeries(
                    "status p99 (ms)",
                    x,
                    r.growth.stream()
                            .mapToDouble(g -> g.statusReads().millis(99))
                            .toArray());
            files.add(save(growth, dir, "growth-latency"));

            XYChart reads = xy("Growth: rates against the queue's size", "queued requests", "per second");
            reads.getStyler().setXAxisLogarithmic(true);
            reads.addSeries(
                    "status reads/s",
                    x,
                    r.growth.stream()
                            .mapToDouble(g -> g.statusReads().perSecond())
                            .toArray());
            reads.addSeries(
                    "admissions/s",
                    x,
                    r.growth.stream()
                            .mapToDouble(g -> g.admissions().perSecond())
                            .toArray());
            files.add(save(reads, dir, "growth-rates"));
        }
        if (r.issuance != null && r.issuance.issuedOverTime().size() >= 2) {
            XYChart issuance = xy("Issuance: wallets written after the rate was raised", "seconds", "wallets");
            List<Results.Sample> s = r.issuance.issuedOverTime();
            XYSeries pipeline = issuance.addSeries(
                    "wallets (pipeline)",
                    s.stream().mapToDouble(Results.Sample::seconds).toArray(),
                    s.stream().mapToDouble(Results.Sample::value).toArray());
            pipeline.setMarker(SeriesMarkers.NONE);
            if (r.rawInsert != null && r.rawInsert.rowsPerSecond() > 0) {
                double end = s.get(s.size() - 1).seconds();
                double rawEnd = Math.min(end, r.issuance.issued() / r.rawInsert.rowsPerSecond());
                XYSeries raw = issuance.addSeries(
                        "raw MySQL batched inserts, same rows",
                        new double[] {0, rawEnd},
                        new double[] {0, rawEnd * r.rawInsert.rowsPerSecond()});
                raw.setMarker(SeriesMarkers.NONE);
            }
            files.add(save(issuance, dir, "issuance"));
        }
        if (!r.memorySeries.isEmpty()) {
            XYChart memory = xy(
                    "Memory of the apps (RSS sampled every second, heap every " + MemorySampler.HEAP_EVERY + " s)",
                    "seconds since the run started",
                    "MiB");
            r.memorySeries.forEach((name, samples) -> {
                if (samples.size() >= 2) {
                    XYSeries series = memory.addSeries(
                            name,
                            samples.stream()
                                    .mapToDouble(Results.Sample::seconds)
                                    .toArray(),
                            samples.stream().mapToDouble(Results.Sample::value).toArray());
                    series.setMarker(SeriesMarkers.NONE);
                }
            });
            if (!memory.getSeriesMap().isEmpty()) {
                files.add(save(memory, dir, "memory"));
            }
        }
        return files;
    }

    private static CategoryChart category(String title, String yTitle) {
        CategoryChart chart = new CategoryChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNE);
        chart.getStyler().setXAxisLabelRotation(20);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        return chart;
    }

    private static XYChart xy(String title, String xTitle, String yTitle) {
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(xTitle)
                .yAxisTitle(yTitle)
                .build();
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        chart.getStyler().setYAxisDecimalPattern("#,##0.##");
        return chart;
    }

    private static String save(Chart<?, ?> chart, Path dir, String name) throws IOException {
        BitmapEncoder.saveBitmap(chart, dir.resolve(name).toString(), BitmapFormat.PNG);
        return name + ".png";
    }
}
