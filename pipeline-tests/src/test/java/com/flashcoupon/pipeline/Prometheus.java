package com.flashcoupon.pipeline;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One scrape of {@code /actuator/prometheus}, read line by line (the text exposition format). */
record Prometheus(List<Sample> samples) {

    record Sample(String name, Map<String, String> labels, double value) {}

    private static final Pattern LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)})?\\s+(\\S+)(\\s+\\d+)?$");
    private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");

    static Prometheus parse(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String line : text.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            Matcher m = LINE.matcher(line.strip());
            if (!m.matches()) {
                continue;
            }
            Map<String, String> labels = new java.util.HashMap<>();
            if (m.group(3) != null) {
                Matcher l = LABEL.matcher(m.group(3));
                while (l.find()) {
                    labels.put(l.group(1), l.group(2));
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(4))));
        }
        return new Prometheus(samples);
    }

    boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }

    /** The sum over every series of {@code name} whose labels include {@code labels}; 0 when there is none. */
    double sum(String name, Map<String, String> labels) {
        return samples.stream()
                .filter(s -> s.name().equals(name))
                .filter(s -> s.labels().entrySet().containsAll(labels.entrySet()))
                .mapToDouble(Sample::value)
                .sum();
    }

    double sum(String name) {
        return sum(name, Map.of());
    }
}
