package com.flashcoupon.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The settings tables of docs/operations.md ("Configuration") against what reads them: every {@code COUPON_*}
 * variable a table documents is read somewhere, and every one that is read is documented.
 *
 * <p>What reads a variable, exactly:
 *
 * <ul>
 *   <li>an app's {@code coupon.*} property, bound with Spring's relaxed rules (property {@code coupon.drain.max-batch}
 *       is variable {@code COUPON_DRAIN_MAX_BATCH}). The properties are those of the apps' own configuration metadata
 *       ({@code META-INF/spring-configuration-metadata.json}, written by the configuration processor from every
 *       {@code @ConfigurationProperties} class of the api and the worker, nested records included), and those a
 *       placeholder {@code ${coupon....}} names in the apps' main sources (a {@code @Scheduled} delay, a condition);
 *   <li>a placeholder {@code ${COUPON_...}} in the apps' yml files (api.yml, application.yml and their profiles),
 *       which may give a property another name ({@code COUPON_KAFKA_PARTITIONS} for
 *       {@code coupon.kafka.topic-partitions}): such a property is documented under the placeholder's name;
 *   <li>a default the bin/ scripts give a variable ({@code ${COUPON_...:=...}} or {@code :-}).
 * </ul>
 *
 * Every placeholder and every script default must have a row, and so must every property that no placeholder feeds.
 * A row may name any of these, and nothing else. The deployments (deploy/ and docker-compose.yml) may set only
 * variables something reads.
 */
class OperationsSettingsTest {

    static final Path ROOT = KubernetesManifestsTest.ROOT;
    static final Path DOCUMENT = ROOT.resolve("docs/operations.md");

    private static final Pattern VARIABLE = Pattern.compile("\\bCOUPON_[A-Z0-9_]+\\b");
    private static final Pattern ENV_PLACEHOLDER = Pattern.compile("\\$\\{(COUPON_[A-Z0-9_]+)");
    private static final Pattern PROPERTY_PLACEHOLDER = Pattern.compile("\\$\\{(coupon\\.[a-z0-9.-]+)");
    private static final Pattern SCRIPT_DEFAULT = Pattern.compile("\\$\\{(COUPON_[A-Z0-9_]+):[-=?]");
    private static final List<String> APPS = List.of("api", "issuer-worker");
    private static final List<String> SOURCES = List.of("api", "issuer-worker", "db");

    /**
     * What reads settings.
     *
     * @param properties every {@code coupon.*} property the apps bind or resolve
     * @param placeholders every {@code ${COUPON_...}} placeholder of the apps' yml files, with the properties it feeds
     * @param scripts every variable the bin/ scripts give a default
     */
    record Readers(Set<String> properties, Map<String, Set<String>> placeholders, Set<String> scripts) {

        /** Every variable something reads. */
        Set<String> variables() {
            Set<String> all = new TreeSet<>(placeholders.keySet());
            all.addAll(scripts);
            properties.forEach(property -> all.add(variable(property)));
            return all;
        }

        /** The variables that must have a row. */
        Set<String> required() {
            Set<String> fed = new TreeSet<>();
            placeholders.values().forEach(fed::addAll);
            Set<String> required = new TreeSet<>(placeholders.keySet());
            required.addAll(scripts);
            properties.stream()
                    .filter(property -> !fed.contains(property))
                    .forEach(property -> required.add(variable(property)));
            return required;
        }
    }

    /** What a check of the document found: variables without a row, and rows naming what nothing reads. */
    record Differences(Set<String> undocumented, Set<String> unread) {}

    @Test
    void shouldDocumentExactlyTheSettingsSomethingReads() throws IOException {
        Readers readers = readers();
        Differences differences = check(Files.readString(DOCUMENT, StandardCharsets.UTF_8), readers);

        assertThat(differences.undocumented())
                .as("COUPON_* settings read by the apps or bin/ without a row in %s's Configuration tables", DOCUMENT)
                .isEmpty();
        assertThat(differences.unread())
                .as("rows of %s's Configuration tables naming a COUPON_* variable nothing reads", DOCUMENT)
                .isEmpty();
    }

    @Test
    void shouldFindTheSettingsOfBothAppsAndTheScripts() throws IOException {
        Readers readers = readers();

        assertThat(readers.properties())
                .as("a property of each app's metadata, one bound only by relaxed binding, one only by a placeholder"
                        + " in the sources")
                .contains("coupon.drain.max-batch", "coupon.worker.max-batch", "coupon.warmup.concurrency")
                .contains("coupon.metrics.gauge-refresh");
        assertThat(readers.placeholders())
                .containsEntry("COUPON_KAFKA_PARTITIONS", Set.of("coupon.kafka.topic-partitions"));
        assertThat(readers.scripts()).contains("COUPON_API_URL", "COUPON_WORKER_URL");
    }

    @Test
    void shouldSetInTheDeploymentsOnlySettingsSomethingReads() throws IOException {
        Set<String> read = readers().variables();
        Map<String, Set<String>> unread = new TreeMap<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(ROOT.resolve("deploy"))) {
            files = walk.filter(Files::isRegularFile)
                    .filter(file ->
                            file.toString().endsWith(".yaml") || file.toString().endsWith(".yml"))
                    .toList();
        }
        for (Path file : Stream.concat(files.stream(), Stream.of(ROOT.resolve("docker-compose.yml")))
                .toList()) {
            for (String variable : matches(VARIABLE, Files.readString(file, StandardCharsets.UTF_8))) {
                if (!read.contains(variable)) {
                    unread.computeIfAbsent(ROOT.relativize(file).toString(), key -> new TreeSet<>())
                            .add(variable);
                }
            }
        }
        assertThat(files).as("manifests under deploy/").isNotEmpty();
        assertThat(unread)
                .as("COUPON_* variables the deployments set that nothing reads")
                .isEmpty();
    }

    /** The check itself fails when it should, on the real document and the real readers. */
    @Nested
    class TheCheckItself {

        @Test
        void shouldNoticeASettingWhoseRowWasRemoved() throws IOException {
            String document = Files.readString(DOCUMENT, StandardCharsets.UTF_8);
            Readers readers = readers();
            // one bound by relaxed binding only, one read through a yml placeholder, one a script's own
            List<String> removed = List.of("COUPON_WARMUP_CONCURRENCY", "COUPON_DRAIN_TICK", "COUPON_API_URL");
            // (the script's row names COUPON_WORKER_URL too: removing it leaves both undocumented)
            String without = document;
            for (String variable : removed) {
                String row = document.lines()
                        .filter(line -> line.startsWith("| `" + variable + "`"))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no row of " + variable + " in " + DOCUMENT));
                without = without.replace(row + "\n", "");
            }

            assertThat(check(document, readers).undocumented()).doesNotContainAnyElementsOf(removed);
            assertThat(check(without, readers).undocumented())
                    .as("the variables of the removed rows")
                    .containsAll(removed)
                    .allMatch(variable -> removed.contains(variable) || variable.equals("COUPON_WORKER_URL"));
            assertThat(check(without, readers).unread()).isEmpty();
        }

        @Test
        void shouldNoticeARowNamingWhatNothingReads() throws IOException {
            String document = Files.readString(DOCUMENT, StandardCharsets.UTF_8);
            Readers readers = readers();
            String header = "| variable | default | what |\n| --- | --- | --- |\n";
            assertThat(document).contains(header);
            String extra = document.replaceFirst(
                    Pattern.quote(header),
                    Matcher.quoteReplacement(
                            header + "| `COUPON_READ_BY_NOTHING` | `1` | a setting nothing reads |\n"));

            assertThat(check(document, readers).unread()).isEmpty();
            assertThat(check(extra, readers).unread()).containsExactly("COUPON_READ_BY_NOTHING");
        }

        @Test
        void shouldCountOnlyTheFirstColumnOfTheConfigurationSectionsTables() {
            Readers readers = new Readers(
                    Set.of("coupon.drain.tick", "coupon.warmup.at-most"),
                    Map.of("COUPON_DB_URL", Set.of("spring.datasource.url")),
                    Set.of("COUPON_API_URL"));
            String document = """
                    # Operating

                    ## Configuration

                    | variable | default | what |
                    | --- | --- | --- |
                    | `COUPON_DRAIN_TICK` | `200ms` | see also `COUPON_WARMUP_AT_MOST` |
                    | `COUPON_DB_URL`, `COUPON_API_URL` | | |

                    `COUPON_WARMUP_AT_MOST` in a sentence is not a row.

                    ## Metrics

                    | `COUPON_WARMUP_AT_MOST` | outside the section |
                    """;

            assertThat(check(document, readers)).isEqualTo(new Differences(Set.of("COUPON_WARMUP_AT_MOST"), Set.of()));
        }
    }

    /** The differences between the Configuration section's tables and what the readers read. */
    static Differences check(String document, Readers readers) {
        Set<String> documented = documented(document);
        Set<String> undocumented = new TreeSet<>(readers.required());
        undocumented.removeAll(documented);
        Set<String> unread = new TreeSet<>(documented);
        unread.removeAll(readers.variables());
        return new Differences(Collections.unmodifiableSet(undocumented), Collections.unmodifiableSet(unread));
    }

    /** The variables named in the first column of a table row of the "## Configuration" section. */
    static Set<String> documented(String document) {
        Set<String> documented = new TreeSet<>();
        boolean inSection = false;
        for (String line : document.lines().toList()) {
            if (line.startsWith("## ")) {
                inSection = line.equals("## Configuration");
            } else if (inSection && line.startsWith("|")) {
                String[] cells = line.split("\\|", -1);
                if (cells.length > 2) {
                    documented.addAll(matches(VARIABLE, cells[1]));
                }
            }
        }
        return documented;
    }

    /** A property's environment variable under Spring's relaxed binding: dots and dashes to underscores, upper case. */
    static String variable(String property) {
        return property.replaceAll("\\[[^]]*]", "")
                .replace('.', '_')
                .replace('-', '_')
                .toUpperCase(Locale.ROOT);
    }

    static Readers readers() throws IOException {
        Set<String> properties = new TreeSet<>(metadataProperties());
        Map<String, Set<String>> placeholders = new TreeMap<>();
        for (String app : APPS) {
            Path resources = ROOT.resolve(app).resolve("src/main/resources");
            try (Stream<Path> files = Files.list(resources)) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".yml")).toList()) {
                    String text = Files.readString(file, StandardCharsets.UTF_8);
                    for (Object document : new Yaml().loadAll(text)) {
                        flatten("", document).forEach((key, value) -> {
                            matches(ENV_PLACEHOLDER, value)
                                    .forEach(variable -> placeholders
                                            .computeIfAbsent(variable, v -> new TreeSet<>())
                                            .add(key));
                            properties.addAll(matches(PROPERTY_PLACEHOLDER, value));
                        });
                    }
                }
            }
        }
        for (String module : SOURCES) {
            try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
                for (Path file :
                        files.filter(f -> f.toString().endsWith(".java")).toList()) {
                    properties.addAll(matches(PROPERTY_PLACEHOLDER, Files.readString(file, StandardCharsets.UTF_8)));
                }
            }
        }
        Set<String> scripts = new TreeSet<>();
        // bin/'s scripts, and those deploy/ runs in its containers (compose's Kafka start and access scripts)
        try (Stream<Path> files = Stream.concat(
                Files.walk(ROOT.resolve("bin")),
                Files.walk(ROOT.resolve("deploy"))
                        .filter(file -> file.toString().endsWith(".sh")))) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                scripts.addAll(matches(SCRIPT_DEFAULT, Files.readString(file, StandardCharsets.UTF_8)));
            }
        }
        return new Readers(properties, placeholders, scripts);
    }

    /**
     * The {@code coupon.*} properties of the apps' configuration metadata, from their jars on this module's test
     * classpath; fails unless both apps' metadata is there, so that the check can never pass on nothing.
     */
    static Set<String> metadataProperties() throws IOException {
        Set<String> properties = new TreeSet<>();
        Set<String> apps = new TreeSet<>();
        List<URL> found = Collections.list(OperationsSettingsTest.class
                .getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"));
        for (URL url : found) {
            JsonNode metadata;
            try (InputStream in = url.openStream()) {
                metadata = new ObjectMapper().readTree(in);
            }
            // properties only: groups ("coupon.drain") and hints are not settings
            for (JsonNode property : metadata.path("properties")) {
                String name = property.path("name").asText();
                String source = property.path("sourceType").asText();
                if (source.startsWith("com.flashcoupon.api.")) {
                    apps.add("api");
                } else if (source.startsWith("com.flashcoupon.worker.")) {
                    apps.add("issuer-worker");
                }
                if (name.startsWith("coupon.")) {
                    properties.add(name);
                }
            }
        }
        assertThat(apps).as("configuration metadata found at %s", found).containsExactlyInAnyOrderElementsOf(APPS);
        return properties;
    }

    /** A yml document as {@code dotted.key -> scalar text}. */
    private static Map<String, String> flatten(String prefix, Object node) {
        Map<String, String> flat = new TreeMap<>();
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) ->
                    flat.putAll(flatten(prefix.isEmpty() ? key.toString() : prefix + "." + key, value)));
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                flat.putAll(flatten(prefix + "[" + i + "]", list.get(i)));
            }
        } else if (node != null) {
            flat.put(prefix, node.toString());
        }
        return flat;
    }

    private static Set<String> matches(Pattern pattern, String text) {
        Set<String> found = new TreeSet<>();
        Matcher matcher = pattern.matcher(text);
        while (matcher.find()) {
            found.add(matcher.groupCount() > 0 ? matcher.group(1) : matcher.group());
        }
        return found;
    }
}
