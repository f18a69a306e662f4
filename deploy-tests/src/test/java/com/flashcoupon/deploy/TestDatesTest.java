package com.flashcoupon.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.DateTimeException;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * No test holds a date that time will pass. On 2026-11-27 the whole suite went red because a test created an event
 * with a literal {@code openAt} of that day and expected it to be {@code SCHEDULED}: a test that means "in the future"
 * or "in the past" computes it from the clock it runs with. This check reads every file under each module's
 * {@code src/test} and fails on a literal date within a year of today (either side) that stands within three lines
 * of an event's window ({@code openAt}, {@code closeAt}, {@code announceAt}, {@code drawAt}, their column and flag
 * spellings) or of an expected {@code SCHEDULED}/{@code OPEN} status. Dates far from today (1970, 2000, year 10000)
 * are left alone: they stay on the same side of now for a lifetime. A test that controls its clock still passes this
 * check by deriving its times from the fixed clock's instant rather than writing a second literal near the window.
 */
class TestDatesTest {

    private static final Pattern DATE = Pattern.compile("(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])");
    private static final Pattern WINDOW = Pattern.compile(
            "open_?at|close_?at|announce_?at|draw_?at|open-at|close-at|SCHEDULED|\"OPEN\"|Status\\.OPEN\\b",
            Pattern.CASE_INSENSITIVE);
    private static final int NEAR = 3;
    private static final Set<String> READ = Set.of("java", "yml", "yaml", "json", "sql", "properties", "ts", "js");
    private static final Set<String> SKIPPED = Set.of(".git", "target", "node_modules", ".run", "dist");

    /** A pinned date: where, and the line that holds it. */
    record Pin(String where, int line, String text) {
        @Override
        public String toString() {
            return where + ":" + line + ": " + text.strip();
        }
    }

    /** The pinned dates of one file's text, judged against {@code today}. */
    static List<Pin> pins(String where, String text, LocalDate today) {
        String[] lines = text.split("\n", -1);
        List<Pin> found = new ArrayList<>();
        for (int i = 0; i < lines.length; i++) {
            if (nearToday(lines[i], today) && nearAWindow(lines, i)) {
                found.add(new Pin(where, i + 1, lines[i]));
            }
        }
        return found;
    }

    private static boolean nearToday(String line, LocalDate today) {
        Matcher date = DATE.matcher(line);
        while (date.find()) {
            try {
                LocalDate day = LocalDate.of(
                        Integer.parseInt(date.group(1)),
                        Integer.parseInt(date.group(2)),
                        Integer.parseInt(date.group(3)));
                if (Math.abs(ChronoUnit.DAYS.between(today, day)) <= 366) {
                    return true;
                }
            } catch (DateTimeException notADate) {
                // 2026-13-45 is no date; a version string or an id, not a pin
            }
        }
        return false;
    }

    private static boolean nearAWindow(String[] lines, int at) {
        for (int i = Math.max(0, at - NEAR); i <= Math.min(lines.length - 1, at + NEAR); i++) {
            if (WINDOW.matcher(lines[i]).find()) {
                return true;
            }
        }
        return false;
    }

    @Test
    void noTestFileHoldsALiteralDateWithinAYearOfTodayNextToAnEventsWindow() throws IOException {
        LocalDate today = LocalDate.now(ZoneOffset.UTC);
        List<Pin> pins = new ArrayList<>();
        List<Path> read = testSources(KubernetesManifestsTest.ROOT);
        for (Path file : read) {
            pins.addAll(pins(KubernetesManifestsTest.ROOT.relativize(file).toString(), text(file), today));
        }

        assertThat(read)
                .as("test sources found under %s", KubernetesManifestsTest.ROOT)
                .hasSizeGreaterThan(100);
        assertThat(pins)
                .as("literal dates near an event's window in tests: compute them from the test's clock")
                .isEmpty();
    }

    /** Every file with a readable extension under a {@code src/test}; build output, clones and packages skipped. */
    private static List<Path> testSources(Path root) throws IOException {
        List<Path> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes) {
                return SKIPPED.contains(dir.getFileName().toString())
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                String name = file.getFileName().toString();
                if (file.toString().replace('\\', '/').contains("/src/test/")
                        && READ.contains(name.substring(name.lastIndexOf('.') + 1))
                        && !name.equals("TestDatesTest.java")) {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return found;
    }

    private static String text(Path file) {
        try {
            return Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Nested
    class TheCheckItself {

        private final LocalDate today = LocalDate.of(2026, 11, 28);

        @Test
        void shouldFindTheOpenAtThatBrokeTheSuiteOn20261127() {
            // the line as AdminApiTest had it: the day before this check's today
            String test = """
                    private static final String OPEN_AT = "%sT00:00:00Z";
                    // ...
                    .jsonPath("$.status").isEqualTo("SCHEDULED")
                    """.formatted(today.minusDays(1));

            assertThat(pins("AdminApiTest.java", test, today))
                    .extracting(Pin::line)
                    .containsExactly(1);
        }

        @Test
        void shouldFindADateNextYearNextToACloseAt() {
            String test = """
                    Instant close = Instant.parse("2027-06-01T00:00:00Z");
                    coupons.insert(new NewCoupon("a", 1, open, close, 1, 1)); // closeAt
                    """;

            assertThat(pins("X.java", test, today)).hasSize(1);
        }

        @Test
        void shouldLeaveDatesFarFromTodayAndDatesAwayFromAnyWindowAlone() {
            String test = """
                    Instant now = Instant.parse("2026-11-22T08:00:00Z");
                    assertThat(retryAfter("Fri, 27 Nov 2026 00:00:30 GMT", now)).contains(Duration.ofSeconds(30));
                    // one
                    // two
                    // three
                    .bodyValue("{\\"closeAt\\":\\"2000-01-01T00:00:00Z\\"}")
                    window("+10000-01-01T00:00:00Z", null) // openAt
                    String openAt = now.plusSeconds(60).toString();
                    """;

            assertThat(pins("X.java", test, today)).isEmpty();
        }
    }
}
