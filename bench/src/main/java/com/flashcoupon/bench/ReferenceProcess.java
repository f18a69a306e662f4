package com.flashcoupon.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ReferenceServer} in a JVM of its own, started with the api's own JVM options (read from its command line)
 * so that both run on equal terms: a separate heap, JIT and GC from the load generator's, and CPU time readable from
 * {@code /proc/<pid>/stat} like the api's. Stops when closed, or when this JVM exits (its standard input closes).
 */
final class ReferenceProcess implements AutoCloseable {

    private final Process process;
    private final int port;

    private ReferenceProcess(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static ReferenceProcess start(ReferenceServer.Settings settings, List<String> jvmOptions, Path log)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                ReferenceServer.class.getName(),
                "--redis",
                settings.redisUrl(),
                "--secret",
                settings.secret(),
                "--script",
                settings.script().toString(),
                "--member-rate",
                Integer.toString(settings.memberPerSecond()),
                "--address-rate",
                Integer.toString(settings.addressPerSecond())));
        Files.createDirectories(log.getParent());
        Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        String line = out.readLine();
        if (line == null || !line.startsWith("listening on ")) {
            process.destroyForcibly();
            throw new IOException("the reference server did not start (its log: " + log + ")");
        }
        return new ReferenceProcess(
                process,
                Integer.parseInt(line.substring("listening on ".length()).strip()));
    }

    /**
     * The JVM options of a running process ({@code -X...} and {@code -XX:...} from {@code /proc/<pid>/cmdline}), so
     * the reference runs with the api's heap and collector; {@code fallback} when they cannot be read.
     */
    static List<String> jvmOptionsOf(long pid, List<String> fallback) {
        try {
            return jvmOptions(Files.readString(Path.of("/proc/" + pid + "/cmdline"), StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException e) {
            return fallback;
        }
    }

    /** The {@code -X...} options of a NUL-separated command line, up to the main class or {@code -jar}. */
    static List<String> jvmOptions(String cmdline) {
        List<String> options = new ArrayList<>();
        for (String arg : cmdline.split("\0")) {
            if (arg.equals("-jar") || arg.equals("-cp") || (!arg.startsWith("-") && !options.isEmpty())) {
                break;
            }
            if (arg.startsWith("-X")) {
                options.add(arg);
            }
        }
        return options;
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    String url() {
        return "http://127.0.0.1:" + port;
    }

    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
