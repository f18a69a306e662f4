package com.flashcoupon.bench;

import java.util.Locale;

/** How figures are written in the report: thousands separators, milliseconds to a sensible precision, ratios. */
final class Fmt {

    private Fmt() {}

    static String count(long n) {
        return String.format(Locale.ROOT, "%,d", n);
    }

    static String perSecond(double n) {
        return String.format(Locale.ROOT, "%,.0f/s", n);
    }

    /** 0.42 ms, 4.2 ms, 42 ms, 4,200 ms: about two significant digits below 10 ms, whole ms from 100 on. */
    static String ms(double millis) {
        if (millis < 10) {
            return String.format(Locale.ROOT, "%.2f ms", millis);
        }
        if (millis < 100) {
            return String.format(Locale.ROOT, "%.1f ms", millis);
        }
        return String.format(Locale.ROOT, "%,.0f ms", millis);
    }

    /** CPU time per unit of work: "131 µs", or "n/a" when it could not be measured (negative). */
    static String micros(double micros) {
        return micros < 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f µs", micros);
    }

    static String seconds(double seconds) {
        return String.format(Locale.ROOT, "%.1f s", seconds);
    }

    /** {@code part / whole} to two decimals, or "n/a" when the whole is not positive. */
    static String ratio(double part, double whole) {
        return whole > 0 ? String.format(Locale.ROOT, "%.2f", part / whole) : "n/a";
    }

    static String percent(double part, double whole) {
        return whole > 0 ? String.format(Locale.ROOT, "%.0f%%", 100 * part / whole) : "n/a";
    }

    static String mib(long bytes) {
        return bytes < 0 ? "n/a" : String.format(Locale.ROOT, "%,.0f MiB", bytes / (1024.0 * 1024.0));
    }

    /** A target reported, never asserted: "met" or "missed", with the figure and the bound. */
    static String atLeast(double value, double bound) {
        return value >= bound ? "met" : "**missed**";
    }

    static String atMost(double value, double bound) {
        return value <= bound ? "met" : "**missed**";
    }
}
