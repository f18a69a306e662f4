package com.flashcoupon.api.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Redis's {@code MONITOR} on a connection of its own: lets a test wait until the api sent a given command, which is
 * how a test knows a request reached a point that nothing else makes visible (a request waiting for another caller's
 * restore, say), without guessing a time.
 */
public final class RedisMonitor implements AutoCloseable {

    private final Socket socket;
    private final BufferedReader lines;

    public RedisMonitor(String redisUrl) {
        URI uri = URI.create(redisUrl);
        try {
            socket = new Socket(uri.getHost(), uri.getPort());
            socket.setSoTimeout(100);
            socket.getOutputStream().write("MONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            lines = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Waits until a command whose line holds every one of {@code parts} (case-insensitive) was sent, or {@code
     * giveUp} says the wait is pointless (what the test waits for can no longer come). True when the command came.
     */
    public boolean awaitCommand(BooleanSupplier giveUp, String... parts) {
        long deadline = System.nanoTime() + 60_000_000_000L; // a hung api fails the test instead of hanging it
        while (System.nanoTime() < deadline) {
            try {
                String line = lines.readLine();
                if (line == null) {
                    return false;
                }
                String lower = line.toLowerCase(Locale.ROOT);
                boolean all = true;
                for (String part : parts) {
                    all &= lower.contains(part.toLowerCase(Locale.ROOT));
                }
                if (all) {
                    return true;
                }
            } catch (SocketTimeoutException quiet) {
                if (giveUp.getAsBoolean()) {
                    return false;
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return false;
    }

    /**
     * Hands every command line seen to {@code line} until {@code stop} says so (looked at whenever Redis is quiet for
     * 100 ms, and after every line): for a test that collects what the api sent while it drives it.
     */
    public void forEachLine(Consumer<String> line, BooleanSupplier stop) {
        while (!stop.getAsBoolean()) {
            try {
                String read = lines.readLine();
                if (read == null) {
                    return;
                }
                line.accept(read);
            } catch (SocketTimeoutException quiet) {
                // look at stop again
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
