package com.flashcoupon.pipeline;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * A Redis server of the test's own, so that it can be killed and started again without touching the machine's: the
 * same {@code redis-server} binary, on a free port, with AOF and {@code appendfsync always} as the shipped configs
 * have it, so that an accepted request survives the kill.
 */
final class PrivateRedis implements AutoCloseable {

    private final Path dir;
    private final int port;
    private final List<String> options;
    private Process process;

    PrivateRedis() throws IOException {
        this(List.of());
    }

    /** With these further {@code redis-server} options (an ACL file, say); {@code {port}} in one is the port. */
    PrivateRedis(List<String> options) throws IOException {
        this.dir = Files.createTempDirectory("flash-coupon-redis");
        this.port = freePort();
        // "{port}" in an option is this server's port (a TLS port, say)
        this.options = options.stream()
                .map(option -> option.replace("{port}", Integer.toString(port)))
                .toList();
        start();
    }

    /** The directory the server runs in (its files, its log). */
    Path dir() {
        return dir;
    }

    int port() {
        return port;
    }

    /**
     * A free port: the first of {@code COUPON_TEST_PRIVATE_REDIS_PORTS} ({@code from-to}, for machines where several
     * people's tests share the ports) that nothing listens on, otherwise one the system hands out.
     */
    private static int freePort() throws IOException {
        String range = System.getenv("COUPON_TEST_PRIVATE_REDIS_PORTS");
        if (range != null && range.matches("\\d+-\\d+")) {
            int from = Integer.parseInt(range.substring(0, range.indexOf('-')));
            int to = Integer.parseInt(range.substring(range.indexOf('-') + 1));
            int span = to - from + 1;
            // each test JVM starts at a place of its own, so that two forks do not pick the same port at once
            int start = (int) (ProcessHandle.current().pid() % span);
            for (int i = 0; i < span; i++) {
                int candidate = from + (start + i) % span;
                try (var socket = new ServerSocket(candidate, 1, java.net.InetAddress.getLoopbackAddress())) {
                    return candidate;
                } catch (IOException taken) {
                    // the next one
                }
            }
        }
        try (var socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    String url() {
        return "redis://127.0.0.1:" + port;
    }

    void start() throws IOException {
        List<String> command = new java.util.ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--dir",
                dir.toString(),
                "--save",
                "",
                "--appendonly",
                "yes",
                "--appendfsync",
                "always"));
        command.addAll(options);
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        dir.resolve("redis.log").toFile()))
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (var socket = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                ProcessKit.pause(100);
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + port);
    }

    /**
     * Starts the stopped server with none of its data: the AOF (and any snapshot) deleted first, as a Redis whose disk
     * was lost. Only the log stays.
     */
    void startEmpty() throws IOException {
        if (process != null && process.isAlive()) {
            throw new IllegalStateException("kill the server first");
        }
        try (var files = Files.walk(dir)) {
            for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                if (!file.equals(dir) && !file.getFileName().toString().equals("redis.log")) {
                    Files.delete(file);
                }
            }
        }
        start();
    }

    /** As a crash: no shutdown, no last save; what AOF has is what survives. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null && process.isAlive()) {
            kill();
        }
    }
}
