package com.flashcoupon.worker.notify;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A real local HTTP server playing a push provider: it records every request and answers 200, or what a test
 * scripted for a device token (in order, then 200 again).
 */
final class FakePushServer implements AutoCloseable {

    record Received(String method, String path, Map<String, String> headers, String body, long atNanos) {

        boolean isFor(String token) {
            return body.contains("\"" + token + "\"");
        }
    }

    /**
     * @param stallBody when set, the answer's headers and the first bytes of its body are sent, and the rest never
     *     comes (until the server is closed)
     */
    record Answer(int status, Map<String, String> headers, String body, boolean stallBody) {

        Answer(int status, Map<String, String> headers, String body) {
            this(status, headers, body, false);
        }

        /** 200 with a body announced and never finished. */
        static Answer stalling() {
            return new Answer(200, Map.of(), "{\"name\":\"projects/demo/messages/" + "x".repeat(1_000) + "\"}", true);
        }
    }

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(8);
    private final List<Received> received = new CopyOnWriteArrayList<>();
    private final Map<String, Deque<Answer>> scripted = new ConcurrentHashMap<>();
    private final java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);

    FakePushServer() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.createContext("/", this::handle);
        server.setExecutor(executor);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** The next requests carrying this token get these answers, in order. */
    void script(String token, Answer... answers) {
        scripted.computeIfAbsent(token, t -> new ArrayDeque<>()).addAll(List.of(answers));
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    List<Received> receivedFor(String token) {
        return received.stream().filter(r -> r.isFor(token)).toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        Map<String, String> headers = new TreeMap<>();
        exchange.getRequestHeaders()
                .forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.getFirst()));
        var request = new Received(
                exchange.getRequestMethod(), exchange.getRequestURI().getPath(), headers, body, System.nanoTime());
        received.add(request);
        Answer answer = new Answer(200, Map.of(), "{\"name\":\"projects/demo/messages/" + received.size() + "\"}");
        for (Map.Entry<String, Deque<Answer>> entry : scripted.entrySet()) {
            if (request.isFor(entry.getKey())) {
                synchronized (entry.getValue()) {
                    Answer next = entry.getValue().poll();
                    if (next != null) {
                        answer = next;
                    }
                }
            }
        }
        answer.headers().forEach((name, value) -> exchange.getResponseHeaders().set(name, value));
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.sendResponseHeaders(answer.status(), bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            if (answer.stallBody()) {
                out.write(bytes, 0, 10);
                out.flush();
                try {
                    closed.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        closed.countDown();
        server.stop(0);
        executor.shutdownNow();
    }
}
