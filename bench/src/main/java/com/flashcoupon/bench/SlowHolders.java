package com.flashcoupon.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Connections that send a request's head announcing a 16,000-byte body, one byte of it, and nothing more, each on a
 * virtual thread that waits for the server to close it and then opens it again. Plain sockets: the load generator's
 * HTTP client sends whole requests.
 */
final class SlowHolders implements AutoCloseable {

    /**
     * What the held connections saw while counted.
     *
     * @param connections connections kept
     * @param leastOpen fewest open at once while counting (sampled every 100 ms)
     * @param closedByServer connections the api closed (its read or request time-out), each opened again
     * @param timedOut of those, how many were answered 408 first
     * @param otherAnswers of those, how many got any other answer (none is expected)
     */
    record Stats(int connections, int leastOpen, long closedByServer, long timedOut, long otherAnswers) {
        @Override
        public String toString() {
            return String.format(
                    "%,d slow connections held (at least %,d open at once), %,d closed by the api and opened again"
                            + " (%,d answered 408 first, %,d answered otherwise)",
                    connections, leastOpen, closedByServer, timedOut, otherAnswers);
        }
    }

    private final String host;
    private final int port;
    private final int connections;
    private final String[] tokens;
    private final long spreadMillis;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicInteger open = new AtomicInteger();
    private final AtomicInteger leastOpen = new AtomicInteger(Integer.MAX_VALUE);
    private final AtomicBoolean counting = new AtomicBoolean();
    private final AtomicLong closedByServer = new AtomicLong();
    private final AtomicLong timedOut = new AtomicLong();
    private final AtomicLong otherAnswers = new AtomicLong();
    private final List<Thread> threads = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap.KeySetView<Socket, Boolean> sockets = ConcurrentHashMap.newKeySet();

    private SlowHolders(String baseUrl, int connections, String[] tokens, Duration spread) {
        this.spreadMillis = spread.toMillis();
        URI uri = URI.create(baseUrl);
        this.host = uri.getHost();
        this.port = uri.getPort() > 0 ? uri.getPort() : 80;
        this.connections = connections;
        this.tokens = tokens;
    }

    static SlowHolders start(String baseUrl, int connections, String[] tokens, Duration spread) {
        SlowHolders holders = new SlowHolders(baseUrl, connections, tokens, spread);
        for (int i = 0; i < connections; i++) {
            int slot = i;
            holders.threads.add(Thread.ofVirtual().name("slow-" + i).start(() -> holders.hold(slot)));
        }
        holders.threads.add(Thread.ofVirtual().name("slow-sampler").start(holders::sample));
        return holders;
    }

    private void hold(int slot) {
        String path = slot % 2 == 0 ? "/api/v1/me/coupons/1/use" : "/api/v1/me/devices/bench-slow-" + slot;
        String method = slot % 2 == 0 ? "POST" : "PUT";
        byte[] head = (method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer "
                        + tokens[slot % tokens.length] + "\r\nContent-Type: application/json\r\n"
                        + "Content-Length: 16000\r\n\r\n{")
                .getBytes(StandardCharsets.US_ASCII);
        try {
            // spread (over the api's read time-out, by default), so that their time-outs, and their next
            // connections, come as a steady stream; with no spread they come in waves of every connection at once
            Thread.sleep(slot * spreadMillis / connections);
        } catch (InterruptedException e) {
            return;
        }
        while (running.get()) {
            try (Socket socket = new Socket(host, port)) {
                sockets.add(socket);
                socket.getOutputStream().write(head);
                socket.getOutputStream().flush();
                open.incrementAndGet();
                try {
                    byte[] status = socket.getInputStream().readNBytes(12);
                    if (status.length == 12) {
                        String line = new String(status, StandardCharsets.US_ASCII);
                        (line.equals("HTTP/1.1 408") ? timedOut : otherAnswers).incrementAndGet();
                    }
                    socket.getInputStream().transferTo(OutputStream.nullOutputStream());
                } finally {
                    open.decrementAndGet();
                    sockets.remove(socket);
                }
                if (running.get()) {
                    closedByServer.incrementAndGet();
                }
            } catch (IOException e) {
                if (running.get()) {
                    closedByServer.incrementAndGet();
                }
            }
        }
    }

    private void sample() {
        while (running.get()) {
            if (counting.get()) {
                leastOpen.accumulateAndGet(open.get(), Math::min);
            }
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    void awaitOpen(Duration atMost) throws InterruptedException {
        long deadline = System.nanoTime() + atMost.toNanos();
        while (open.get() < connections && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
    }

    int open() {
        return open.get();
    }

    /** From now on the fewest open connections and the closures are counted. */
    void startCounting() {
        closedByServer.set(0);
        timedOut.set(0);
        otherAnswers.set(0);
        counting.set(true);
    }

    Stats stats() {
        int least = leastOpen.get();
        return new Stats(
                connections,
                least == Integer.MAX_VALUE ? open.get() : least,
                closedByServer.get(),
                timedOut.get(),
                otherAnswers.get());
    }

    @Override
    public void close() {
        running.set(false);
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
        for (Thread thread : threads) {
            thread.interrupt();
        }
    }
}
