package com.flashcoupon.loadgen.crowd;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Just enough of docs/http-api.md in memory for {@code crowd} to run against: one coupon, first-come admission with a stock cap,
 * issuance the moment a member is admitted. Reads the token's claims without verifying them.
 */
final class FakeApi implements AutoCloseable {

    private final JsonMapper json = JsonMapper.builder().build();
    private final Map<String, Long> queue = new LinkedHashMap<>();
    private final DisposableServer server;
    private int total;
    private int unauthorizedStatus;

    FakeApi() {
        server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .route(routes -> routes.post("/admin/v1/coupons", this::create)
                        .get("/admin/v1/coupons/{id}", this::stats)
                        .post("/api/v1/coupons/{id}/issue-requests", this::issue))
                .bindNow();
    }

    String url() {
        return "http://127.0.0.1:" + server.port();
    }

    /** Answers every member request with this status (e.g. 401) instead of admitting. */
    void refuseMembersWith(int status) {
        this.unauthorizedStatus = status;
    }

    private JsonNode claims(HttpServerRequest request) {
        String token = request.requestHeaders().get("Authorization").substring("Bearer ".length());
        return json.readTree(new String(Base64.getUrlDecoder().decode(token.split("\\.")[1]), StandardCharsets.UTF_8));
    }

    private Mono<Void> create(HttpServerRequest request, HttpServerResponse response) {
        if (!claims(request).path("roles").toString().contains("coupon-admin")) {
            return response.status(403).send();
        }
        return request.receive().aggregate().asString(StandardCharsets.UTF_8).flatMap(body -> {
            synchronized (this) {
                total = json.readTree(body).path("totalQuantity").intValue();
            }
            return response.status(201)
                    .header("Content-Type", "application/json")
                    .sendString(Mono.just("{\"id\":7,\"name\":\"x\",\"totalQuantity\":" + total + "}"))
                    .then();
        });
    }

    private Mono<Void> issue(HttpServerRequest request, HttpServerResponse response) {
        if (unauthorizedStatus != 0) {
            return response.status(unauthorizedStatus)
                    .sendString(Mono.just("{\"code\":\"UNAUTHORIZED\"}"))
                    .then();
        }
        String member = claims(request).path("sub").stringValue();
        int status;
        String body;
        synchronized (this) {
            Long seq = queue.get(member);
            if (seq != null) {
                status = 200;
                body = "{\"status\":\"ISSUED\",\"position\":null}";
            } else if (queue.size() >= total) {
                status = 409;
                body = "{\"status\":409,\"code\":\"SOLD_OUT\"}";
            } else {
                queue.put(member, (long) queue.size() + 1);
                status = 202;
                body = "{\"status\":\"WAITING\",\"position\":" + queue.size() + "}";
            }
        }
        return response.status(status).sendString(Mono.just(body)).then();
    }

    private Mono<Void> stats(HttpServerRequest request, HttpServerResponse response) {
        int admitted;
        synchronized (this) {
            admitted = queue.size();
        }
        return response.sendString(Mono.just("{\"id\":7,\"stats\":{\"admitted\":" + admitted + ",\"published\":"
                        + admitted + ",\"issued\":" + admitted + ",\"failed\":0}}"))
                .then();
    }

    @Override
    public void close() {
        server.disposeNow();
    }
}
