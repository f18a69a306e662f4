package com.flashcoupon.worker;

import static com.flashcoupon.worker.support.Pipeline.requests;
import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.worker.support.PipelineTestSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What the worker exposes over HTTP to operators: health, Prometheus metrics, and nothing else. */
class OperationsEndpointTest extends PipelineTestSupport {

    @Nested
    class Operations {

        @LocalServerPort
        int port;

        private HttpResponse<String> get(String path) throws Exception {
            try (HttpClient client = HttpClient.newHttpClient()) {
                return client.send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        }

        @Test
        void shouldReportUpWhenHealthIsAsked() throws Exception {
            HttpResponse<String> health = get("/actuator/health");

            assertThat(health.statusCode()).isEqualTo(200);
            JsonNode body = new JsonMapper().readTree(health.body());
            assertThat(body.path("status").asString()).isEqualTo("UP");
            for (String component : List.of("db", "redis", "kafka")) {
                assertThat(body.path("components")
                                .path(component)
                                .path("status")
                                .asString())
                        .as(component)
                        .isEqualTo("UP");
            }
        }

        /**
         * Issue 27: readiness is the worker itself (with the backing services in it, a broker outage stalled every
         * rolling update); the backing services are the backends group.
         */
        @Test
        void shouldKeepTheBackingServicesOutOfReadinessAndInTheBackendsGroup() throws Exception {
            HttpResponse<String> readiness = get("/actuator/health/readiness");
            assertThat(readiness.statusCode()).isEqualTo(200);
            assertThat(new JsonMapper()
                            .readTree(readiness.body())
                            .path("components")
                            .propertyNames())
                    .containsExactly("readinessState");

            HttpResponse<String> backends = get("/actuator/health/backends");
            assertThat(backends.statusCode()).isEqualTo(200);
            assertThat(new JsonMapper()
                            .readTree(backends.body())
                            .path("components")
                            .propertyNames())
                    .containsExactlyInAnyOrder("db", "redis", "kafka");
        }

        @Test
        void shouldExposeWorkerMetricsWhenPrometheusScrapes() throws Exception {
            long id = pipeline.newCoupon(1);
            pipeline.publish(requests(id, 1, 1));
            awaitResults(id, 1);

            HttpResponse<String> metrics = get("/actuator/prometheus");

            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains("coupon_worker_issued_total")
                    .contains("coupon_worker_failed_total{reason=\"SOLD_OUT\"}")
                    .contains("coupon_worker_batch_size")
                    .contains("coupon_worker_write_latency_seconds");
        }

        @Test
        void shouldCloseOtherEndpointsWhenAsked() throws Exception {
            assertThat(get("/actuator/env").statusCode()).isEqualTo(404);
            assertThat(get("/actuator/beans").statusCode()).isEqualTo(404);
        }
    }
}
