package com.flashcoupon.loadgen.crowd;

import com.flashcoupon.loadgen.UsageException;
import java.io.Console;
import java.util.Locale;

/** How progress is shown on stderr: one updating line, a line every few seconds, or nothing. */
enum ProgressMode {
    BAR,
    LINES,
    OFF;

    static ProgressMode parse(String text) {
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "auto" -> onTerminal() ? BAR : LINES;
            case "bar" -> BAR;
            case "lines" -> LINES;
            case "off", "none" -> OFF;
            default -> throw new UsageException("--progress must be auto, bar, lines or off, was: " + text);
        };
    }

    /**
     * Whether we seem to write to a terminal. Java cannot ask about stderr alone: this asks about the console (stdin
     * and stdout), through {@code Console.isTerminal()} where the JDK has it (22+). bin/demo passes
     * {@code --progress bar|lines} from {@code [ -t 2 ]} instead.
     */
    private static boolean onTerminal() {
        Console console = System.console();
        if (console == null || "dumb".equals(System.getenv("TERM"))) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // JDK 21: a console exists only on a terminal
        }
    }
}
