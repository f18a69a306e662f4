package com.flashcoupon.pipeline;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import tools.jackson.databind.json.JsonMapper;

/** A real local HTTP server playing the push webhook: it records every push it is sent and answers 200. */
final class FakePushProvider implements AutoCloseable {

    /** One push as the webhook received it. */
    record Received(String eventId, String deviceToken, String memberId, String outcome) {}

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private final HttpServer server;
    private final ExecutorService executor = Executors.newFixedThreadPool(8);
    private final List<Received> received = new CopyOnWriteArrayList<>();

    FakePushProvider() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 200);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        server.createContext("/push", exchange -> {
            Map<?, ?> body = JSON.readValue(exchange.getRequestBody().readAllBytes(), Map.class);
            received.add(new Received(
                    (String) body.get("eventId"),
                    (String) body.get("deviceToken"),
                    (String) body.get("memberId"),
                    (String) body.get("outcome")));
            byte[] ok = "{}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, ok.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(ok);
            }
        });
        server.setExecutor(executor);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/push";
    }

    List<Received> received() {
        return List.copyOf(received);
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
