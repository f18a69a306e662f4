package com.flashcoupon.bench;

import com.flashcoupon.loadgen.engine.HttpCall;
import com.flashcoupon.loadgen.engine.LoadRunner;
import java.time.Duration;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/** The load generator's own ceiling: against a Netty server in this JVM, then against the api's liveness check. */
final class LoadgenCeilingPhase implements Phase {

    @Override
    public void run(BenchRun b) {
        BenchSettings s = b.s;
        DisposableServer server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .route(routes -> routes.get("/ping", (request, response) -> response.sendString(Mono.just("ok"))))
                .bindNow();
        try {
            b.r.loadgenLocal =
                    ceiling(s, "http://127.0.0.1:" + server.port(), "/ping", "client vs in-JVM Netty server");
            b.info("client ceiling, local server: " + BenchRun.line(b.r.loadgenLocal));
        } finally {
            server.disposeNow(Duration.ofSeconds(5));
        }
        String liveness =
                b.probe("/actuator/health/liveness") == 200 ? "/actuator/health/liveness" : "/actuator/health";
        b.r.loadgenLiveness =
                ceiling(s, s.api(), liveness, "client vs api " + liveness.substring("/actuator/".length()));
        b.info("client ceiling, api " + liveness + ": " + BenchRun.line(b.r.loadgenLiveness));
    }

    private static Measured ceiling(BenchSettings s, String baseUrl, String path, String label) {
        try (LoadRunner http = new LoadRunner(baseUrl, s.concurrency(), s.timeout())) {
            return BenchRun.measure(http, label, s.loadgenRequests(), i -> HttpCall.get(path, null));
        }
    }
}
