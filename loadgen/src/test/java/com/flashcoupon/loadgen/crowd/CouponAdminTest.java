package com.flashcoupon.loadgen.crowd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.loadgen.engine.LoadRunner;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The operator calls against a server that records what it was sent. */
class CouponAdminTest {

    private final JsonMapper json = JsonMapper.builder().build();
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final DisposableServer server = HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .route(routes -> routes.post("/admin/v1/coupons", (rq, rs) -> record(rq, rs, 201, "{\"id\":42}"))
                    .route(rq -> rq.method().name().equals("PATCH"), (rq, rs) -> record(rq, rs, 200, "{}"))
                    .post("/admin/v1/coupons/42/close", (rq, rs) -> record(rq, rs, 200, "{}"))
                    .post("/admin/v1/coupons/43/close", (rq, rs) -> record(rq, rs, 404, "{\"code\":\"NOT_FOUND\"}")))
            .bindNow();
    private final LoadRunner http = new LoadRunner("http://127.0.0.1:" + server.port(), 1, Duration.ofSeconds(5));
    private final CouponAdmin admin = new CouponAdmin(http, json, "operator-token");

    private Mono<Void> record(HttpServerRequest request, HttpServerResponse response, int status, String body) {
        return request.receive()
                .aggregate()
                .asString(StandardCharsets.UTF_8)
                .defaultIfEmpty("")
                .flatMap(sent -> {
                    requests.add(request.method() + " " + request.uri() + " "
                            + request.requestHeaders().get("Authorization") + " " + sent);
                    return response.status(status).sendString(Mono.just(body)).then();
                });
    }

    @AfterEach
    void stop() {
        http.close();
        server.disposeNow();
    }

    @Test
    void shouldCreateACouponWithItsSettingsAsJson() {
        long id = admin.create("bench \"crowd\"", 5_000_000_000L, 7);

        assertThat(id).isEqualTo(42);
        String request = requests.get(0);
        assertThat(request).startsWith("POST /admin/v1/coupons Bearer operator-token {");
        JsonNode body = json.readTree(request.substring(request.indexOf('{')));
        assertThat(body.path("name").stringValue()).isEqualTo("bench \"crowd\"");
        assertThat(body.path("totalQuantity").longValue()).isEqualTo(5_000_000_000L);
        assertThat(body.path("issueRatePerSecond").intValue()).isEqualTo(7);
        assertThat(body.path("validDays").intValue()).isEqualTo(30);
        assertThat(body.has("closeAt")).isTrue();
        assertThat(body.has("stockShards"))
                .as("one shard: the field is left out")
                .isFalse();
    }

    @Test
    void shouldAskForStockShardsWhenGivenMoreThanOne() {
        admin.create("sharded", 100, 7, 0, 0, 6);

        String request = requests.get(0);
        JsonNode body = json.readTree(request.substring(request.indexOf('{')));
        assertThat(body.path("stockShards").intValue()).isEqualTo(6);
    }

    @Test
    void shouldPatchTheRateAndClose() {
        admin.patchRate(42, 100_000);
        admin.close(42);

        assertThat(requests)
                .containsExactly(
                        "PATCH /admin/v1/coupons/42 Bearer operator-token {\"issueRatePerSecond\":100000}",
                        "POST /admin/v1/coupons/42/close Bearer operator-token ");
    }

    @Test
    void shouldThrowWhenTheApiDoesNotAnswerAsDocumented() {
        assertThatThrownBy(() -> admin.close(43))
                .isInstanceOf(CouponAdmin.ApiException.class)
                .hasMessageContaining("404");
    }
}
