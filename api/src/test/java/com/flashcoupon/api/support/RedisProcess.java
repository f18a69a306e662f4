package com.flashcoupon.api.support;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A {@code redis-server} of a test's own, on a free port, without persistence; {@code kill -9} with {@link #kill}. */
public final class RedisProcess implements AutoCloseable {

    private final int port;
    private final Process process;

    public RedisProcess(String... extraArguments) throws IOException {
        try (var socket = new ServerSocket(0)) {
            this.port = socket.getLocalPort();
        }
        Path dir = Files.createTempDirectory("flash-coupon-redis");
        List<String> command = new ArrayList<>(List.of(
                "redis-server",
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString()));
        command.addAll(List.of(extraArguments));
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("redis.log").toFile())
                .start();
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (System.nanoTime() < deadline) {
            try (var socket = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                sleep(50);
            }
        }
        throw new IllegalStateException("redis-server did not start on port " + port);
    }

    public int port() {
        return port;
    }

    public String url() {
        return "redis://127.0.0.1:" + port;
    }

    /** {@code kill -9}: whatever it did not send yet is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly().waitFor();
    }

    @Override
    public void close() throws InterruptedException {
        kill();
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
