package com.flashcoupon.loadgen.draw;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A local HTTP server for the verify-draw tests: it answers each path with the body put for it (200), any other with
 * {@code {}} (404), and keeps every {@code Authorization} header it was sent.
 */
final class ServedPaths implements AutoCloseable {

    /** The body each path answers, changed by the tests as they go. */
    final Map<String, String> bodies = new ConcurrentHashMap<>();

    /** Every {@code Authorization} header received, in order. */
    final List<String> authorizations = new CopyOnWriteArrayList<>();

    private final HttpServer server;

    ServedPaths() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            String auth = exchange.getRequestHeaders().getFirst("Authorization");
            if (auth != null) {
                authorizations.add(auth);
            }
            String body = bodies.get(exchange.getRequestURI().getPath());
            byte[] bytes = (body == null ? "{}" : body).getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(body == null ? 404 : 200, bytes.length);
            exchange.getResponseBody().write(bytes);
            exchange.close();
        });
        server.start();
    }

    /** {@code http://127.0.0.1:<port>}, no trailing slash. */
    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
