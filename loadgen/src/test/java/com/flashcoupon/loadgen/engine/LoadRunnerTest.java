package com.flashcoupon.loadgen.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

class LoadRunnerTest {

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger maxInFlight = new AtomicInteger();
    private final Set<String> seenHeaders = ConcurrentHashMap.newKeySet();
    private final Set<String> connections = ConcurrentHashMap.newKeySet();
    private DisposableServer server;

    @BeforeEach
    void startServer() {
        server = HttpServer.create()
                .host("127.0.0.1")
                .port(0)
                .route(routes -> routes.post("/status/{code}", (request, response) -> {
                            int now = inFlight.incrementAndGet();
                            maxInFlight.accumulateAndGet(now, Math::max);
                            seenHeaders.add(
                                    "content-length=" + request.requestHeaders().get("Content-Length"));
                            seenHeaders.add(
                                    "authorization=" + request.requestHeaders().get("Authorization"));
                            request.withConnection(
                                    c -> connections.add(c.channel().id().asShortText()));
                            int code = Integer.parseInt(request.param("code"));
                            return request.receive()
                                    .then(Mono.delay(Duration.ofMillis(2)))
                                    .then(Mono.defer(() -> {
                                        inFlight.decrementAndGet();
                                        return response.status(code)
                                                .sendString(Mono.just("{\"code\":" + code + "}"))
                                                .then();
                                    }));
                        })
                        .post(
                                "/echo",
                                (request, response) -> response.sendString(request.receive()
                                        .aggregate()
                                        .asString(StandardCharsets.UTF_8)
                                        .map(body -> request.requestHeaders().get("Content-Type") + " " + body))))
                .bindNow();
    }

    @AfterEach
    void stopServer() {
        server.disposeNow();
    }

    private String base() {
        return "http://127.0.0.1:" + server.port();
    }

    @Test
    void shouldRunEveryRequestAndCountOutcomesWithinTheConcurrency() {
        try (LoadRunner runner = new LoadRunner(base(), 8, Duration.ofSeconds(10))) {
            LoadResult result = runner.run(
                    300,
                    i -> HttpCall.post("/status/" + (i % 3 == 0 ? 409 : 202), "token-" + (i % 2)),
                    ResponseClassifier.BY_STATUS,
                    ProgressListener.NONE);

            assertThat(result.total()).isEqualTo(300);
            assertThat(result.outcomes()).isEqualTo(Map.of("202", 200L, "409", 100L));
            assertThat(result.latencyMicros().getTotalCount()).isEqualTo(300);
            assertThat(result.latencyMillis(50)).isGreaterThanOrEqualTo(2.0);
            assertThat(result.perSecond(300)).isPositive();
            assertThat(result.firstError()).isNull();
            assertThat(maxInFlight.get()).isBetween(2, 8);
            assertThat(connections).hasSizeLessThanOrEqualTo(8);
        }
    }

    @Test
    void shouldSendABearerTokenAndAnEmptyBodyOnAPostWithoutBody() {
        try (LoadRunner runner = new LoadRunner(base(), 2, Duration.ofSeconds(10))) {
            runner.run(4, i -> HttpCall.post("/status/202", "t"), ResponseClassifier.BY_STATUS, ProgressListener.NONE);
        }

        assertThat(seenHeaders).containsExactlyInAnyOrder("content-length=0", "authorization=Bearer t");
    }

    @Test
    void shouldSendAJsonBodyAndReturnTheAnswer() {
        try (LoadRunner runner = new LoadRunner(base(), 1, Duration.ofSeconds(10))) {
            LoadRunner.Answer answer =
                    runner.send(HttpCall.post("/echo", null, "{\"a\":1}")).block();

            assertThat(answer.status()).isEqualTo(200);
            assertThat(answer.body()).isEqualTo("application/json {\"a\":1}");
        }
    }

    @Test
    void shouldTellProgressListenersAndClassifiersWhatHappened() {
        AtomicInteger started = new AtomicInteger();
        AtomicInteger finishedDone = new AtomicInteger();
        ProgressListener listener = new ProgressListener() {
            @Override
            public void started(LiveStats live) {
                started.set(live.total());
            }

            @Override
            public void finished(LiveStats live) {
                finishedDone.set((int) live.done());
            }
        };
        Set<Integer> classified = ConcurrentHashMap.newKeySet();
        try (LoadRunner runner = new LoadRunner(base(), 4, Duration.ofSeconds(10))) {
            LoadResult result = runner.run(
                    20,
                    i -> HttpCall.post("/status/200", null),
                    (index, status, body) -> {
                        classified.add(index);
                        return body;
                    },
                    listener);

            assertThat(result.outcomes()).isEqualTo(Map.of("{\"code\":200}", 20L));
        }
        assertThat(started.get()).isEqualTo(20);
        assertThat(finishedDone.get()).isEqualTo(20);
        assertThat(classified).hasSize(20);
    }

    @Test
    void shouldCountRequestsWithoutAnAnswerAsConnectionErrors() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        Set<Integer> failed = ConcurrentHashMap.newKeySet();
        ResponseClassifier classifier = new ResponseClassifier() {
            @Override
            public String classify(int index, int status, String body) {
                return "answered";
            }

            @Override
            public void failed(int index, Throwable error) {
                failed.add(index);
            }
        };
        try (LoadRunner runner = new LoadRunner("http://127.0.0.1:" + closedPort, 4, Duration.ofSeconds(5))) {
            LoadResult result = runner.run(10, i -> HttpCall.post("/x", null), classifier, ProgressListener.NONE);

            assertThat(result.outcomes()).isEqualTo(Map.of(LoadRunner.CONNECTION_ERROR, 10L));
            assertThat(result.latencyMicros().getTotalCount()).isZero();
            assertThat(result.firstError()).contains("Connection refused");
        }
        assertThat(failed).hasSize(10);
    }
}
