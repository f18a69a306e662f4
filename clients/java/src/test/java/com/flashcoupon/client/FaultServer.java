package com.flashcoupon.client;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A local server for the client's fault tests (the JDK's own HTTP server): each route answers as the test scripts it,
 * by the number of the call, and every request is recorded with the moment it arrived.
 */
final class FaultServer implements AutoCloseable {

    /** One request as it arrived. */
    record Seen(String method, String path, String query, Map<String, List<String>> headers, long nanos) {

        String header(String name) {
            for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
                if (entry.getKey() != null && entry.getKey().equalsIgnoreCase(name)) {
                    return entry.getValue().get(0);
                }
            }
            return null;
        }
    }

    /** A route's script: how to answer its {@code call}-th request (1 for the first). */
    @FunctionalInterface
    interface Script {
        void answer(Exchange exchange, int call) throws IOException;
    }

    final List<Seen> seen = new CopyOnWriteArrayList<>();
    private final HttpServer server;
    private final Map<String, Script> routes = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    FaultServer() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 100);
        server.setExecutor(Executors.newCachedThreadPool());
        server.createContext("/", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    /** Scripts the route {@code METHOD /path} (the path without its query). */
    FaultServer on(String method, String path, Script script) {
        routes.put(method + " " + path, script);
        return this;
    }

    List<Seen> requests(String method, String path) {
        return seen.stream()
                .filter(s -> s.method().equals(method) && s.path().equals(path))
                .toList();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String key =
                exchange.getRequestMethod() + " " + exchange.getRequestURI().getPath();
        seen.add(new Seen(
                exchange.getRequestMethod(),
                exchange.getRequestURI().getPath(),
                exchange.getRequestURI().getQuery(),
                Map.copyOf(exchange.getRequestHeaders()),
                System.nanoTime()));
        exchange.getRequestBody().readAllBytes();
        Script script = routes.get(key);
        if (script == null) {
            new Exchange(exchange).json(404, "{\"code\":\"NOT_FOUND\"}");
            return;
        }
        int call = calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
        try {
            script.answer(new Exchange(exchange), call);
        } finally {
            exchange.close();
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }

    /** What a script answers with. */
    static final class Exchange {

        final HttpExchange exchange;

        Exchange(HttpExchange exchange) {
            this.exchange = exchange;
        }

        String header(String name) {
            return exchange.getRequestHeaders().getFirst(name);
        }

        Exchange with(String name, String value) {
            exchange.getResponseHeaders().add(name, value);
            return this;
        }

        void json(int status, String body) throws IOException {
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders()
                    .add("Content-Type", status >= 400 ? "application/problem+json" : "application/json");
            exchange.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
            if (bytes.length > 0) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }

        void problem(int status, String code) throws IOException {
            json(status, "{\"status\":" + status + ",\"code\":\"" + code + "\"}");
        }

        /** Starts an event stream; the returned writer sends events, and the stream ends when the script returns. */
        Stream stream() throws IOException {
            exchange.getResponseHeaders().add("Content-Type", "text/event-stream");
            exchange.sendResponseHeaders(200, 0);
            return new Stream(exchange.getResponseBody());
        }

        /** Closes the connection without an answer: a network error for the client. */
        void drop() {
            throw new IllegalStateException("dropped on purpose");
        }
    }

    static final class Stream {

        private final OutputStream out;

        Stream(OutputStream out) {
            this.out = out;
        }

        /** A comment line, as a heartbeat: fails once the client has gone. */
        Stream comment() throws IOException {
            out.write(":\n\n".getBytes(StandardCharsets.UTF_8));
            out.flush();
            return this;
        }

        Stream event(String name, String id, String data) throws IOException {
            String text = "event:" + name + "\n" + (id == null ? "" : "id:" + id + "\n") + "data:" + data + "\n\n";
            out.write(text.getBytes(StandardCharsets.UTF_8));
            out.flush();
            return this;
        }
    }

    static String waiting(long couponId, long position) {
        return "{\"couponId\":" + couponId + ",\"memberId\":\"m\",\"status\":\"WAITING\",\"position\":" + position
                + ",\"estimatedWaitSeconds\":" + position + ",\"walletCouponId\":null,\"estimatedWaitMillis\":"
                + position * 1000 + "}";
    }

    static String issued(long couponId, long walletId) {
        return "{\"couponId\":" + couponId
                + ",\"memberId\":\"m\",\"status\":\"ISSUED\",\"position\":null,\"estimatedWaitSeconds\":null,"
                + "\"walletCouponId\":" + walletId + "}";
    }

    static String failed(long couponId, String reason) {
        return "{\"couponId\":" + couponId
                + ",\"memberId\":\"m\",\"status\":\"FAILED\",\"position\":null,\"estimatedWaitSeconds\":null,"
                + "\"walletCouponId\":null,\"failureReason\":\"" + reason + "\"}";
    }
}
