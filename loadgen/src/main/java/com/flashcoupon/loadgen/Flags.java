package com.flashcoupon.loadgen;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Command-line flags ({@code --name value} or {@code --name=value}) with an environment variable as fallback for each,
 * then a default. Knows its options, so it rejects unknown flags and prints a usage text.
 */
public final class Flags {

    /** A flag: its name without {@code --}, the environment variable read when it is absent (or null), a help text. */
    public record Option(String name, String env, String help) {}

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m|h)?");

    private final Map<String, String> values;
    private final Map<String, Option> options;
    private final Map<String, String> env;

    private Flags(Map<String, String> values, Map<String, Option> options, Map<String, String> env) {
        this.values = values;
        this.options = options;
        this.env = env;
    }

    /** Parses {@code args}; {@code --help} or {@code -h} gives a flag named {@code help} with the value "true". */
    public static Flags parse(List<String> args, List<Option> known, Map<String, String> env) {
        Map<String, Option> options = known.stream().collect(Collectors.toMap(Option::name, Function.identity()));
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (arg.equals("--help") || arg.equals("-h")) {
                values.put("help", "true");
                continue;
            }
            if (!arg.startsWith("--") || arg.length() == 2) {
                throw new UsageException("unexpected argument: " + arg);
            }
            String name = arg.substring(2);
            String value;
            int equals = name.indexOf('=');
            if (equals >= 0) {
                value = name.substring(equals + 1);
                name = name.substring(0, equals);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new UsageException("--" + name + " needs a value");
            }
            if (!options.containsKey(name)) {
                throw new UsageException("unknown flag: --" + name);
            }
            values.put(name, value);
        }
        return new Flags(values, options, env);
    }

    public boolean help() {
        return values.containsKey("help");
    }

    /** The flag, else its environment variable (when set and not blank). */
    public Optional<String> find(String name) {
        Option option = options.get(name);
        if (option == null) {
            throw new IllegalArgumentException("no such option: " + name);
        }
        String value = values.get(name);
        if (value == null && option.env() != null) {
            value = env.get(option.env());
        }
        return Optional.ofNullable(value).filter(v -> !v.isBlank()).map(String::strip);
    }

    public String string(String name, String defaultValue) {
        return find(name).orElse(defaultValue);
    }

    public int integer(String name, int defaultValue, int min, int max) {
        String text = string(name, Integer.toString(defaultValue));
        int value;
        try {
            value = Integer.parseInt(text.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a whole number, was: " + text);
        }
        if (value < min || value > max) {
            throw new UsageException("--" + name + " must be between " + min + " and " + max + ", was " + value);
        }
        return value;
    }

    public double decimal(String name, double defaultValue, double min, double max) {
        String text = string(name, Double.toString(defaultValue));
        double value;
        try {
            value = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw new UsageException("--" + name + " must be a number, was: " + text);
        }
        if (!(value >= min && value <= max)) {
            throw new UsageException("--" + name + " must be between " + min + " and " + max + ", was " + text);
        }
        return value;
    }

    /** A duration such as {@code 500ms}, {@code 30s}, {@code 10m}, {@code 1h}; a bare number means seconds. */
    public Duration duration(String name, Duration defaultValue) {
        Optional<String> text = find(name);
        if (text.isEmpty()) {
            return defaultValue;
        }
        Matcher m = DURATION.matcher(text.get().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new UsageException(
                    "--" + name + " must be a duration like 500ms, 30s, 10m or 1h, was: " + text.get());
        }
        double amount = Double.parseDouble(m.group(1));
        String unit = m.group(2) == null ? "s" : m.group(2);
        double millis = switch (unit) {
            case "ms" -> amount;
            case "m" -> amount * 60_000;
            case "h" -> amount * 3_600_000;
            default -> amount * 1_000;
        };
        return Duration.ofMillis(Math.round(millis));
    }

    /** One line per option: flag, environment variable, help. */
    public static String usage(List<Option> options) {
        StringBuilder text = new StringBuilder();
        for (Option option : options) {
            String env = option.env() == null ? "" : " (env " + option.env() + ")";
            text.append(String.format(Locale.ROOT, "  --%-14s %s%s%n", option.name(), option.help(), env));
        }
        return text.toString();
    }
}
