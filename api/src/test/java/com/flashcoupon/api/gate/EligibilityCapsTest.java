package com.flashcoupon.api.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.web.reactive.function.BodyInserters;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Security review N8: the eligibility upload is capped in bytes, line length, lines and temporary disk, on an api
 * instance with caps small enough to reach. Each cap is answered 413 or 400 naming it ({@code cap}), and the list the
 * event had stays: nothing is replaced.
 */
@ApiTest
class EligibilityCapsTest extends ApiTestBase {

    private static final int MAX_BYTES = 4096;
    private static final int MAX_LINES = 300;
    private static final int MAX_TEMP_BYTES = 6000;

    private static ConfigurableApplicationContext capped;

    @Value("${spring.kafka.bootstrap-servers}")
    private String brokers;

    private long id;

    @BeforeEach
    void eventWithAList() {
        if (capped == null) {
            capped = ApiInstance.start(
                    brokers,
                    Map.of(
                            "coupon.eligibility.max-bytes",
                            MAX_BYTES + "B",
                            "coupon.eligibility.max-lines",
                            Integer.toString(MAX_LINES),
                            "coupon.eligibility.max-temp-bytes",
                            MAX_TEMP_BYTES + "B",
                            // the held upload below pauses while another is answered: a busy machine may be slow
                            "coupon.http.read-timeout",
                            "120s",
                            "coupon.http.request-timeout",
                            "120s"));
        }
        Map<String, Object> body = new HashMap<>(Map.of(
                "name",
                "Capped list",
                "totalQuantity",
                10,
                "openAt",
                Instant.now().plusSeconds(3600).truncatedTo(ChronoUnit.SECONDS).toString(),
                "issueRatePerSecond",
                1,
                "eligibility",
                Map.of("list", true)));
        id = createCoupon(body);
        upload("kept-1\nkept-2\nkept-3\n").expectStatus().isOk();
    }

    @AfterAll
    static void stop() {
        if (capped != null) {
            capped.close();
        }
    }

    private WebTestClient instance() {
        return ApiInstance.client(capped)
                .mutate()
                .responseTimeout(Duration.ofSeconds(60))
                .build();
    }

    private WebTestClient.ResponseSpec upload(String lines) {
        return instance()
                .put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .bodyValue(lines)
                .exchange();
    }

    /** A body sent in pieces without a declared length (chunked). */
    private WebTestClient.ResponseSpec uploadChunked(String lines) {
        Flux<String> pieces = Flux.fromArray(lines.split("(?<=\n)"));
        return instance()
                .put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .body(BodyInserters.fromPublisher(pieces, String.class))
                .exchange();
    }

    private void assertListKept() {
        instance()
                .get()
                .uri("/admin/v1/coupons/{id}/eligibility", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .exchange()
                .expectBody()
                .jsonPath("$.listCount")
                .isEqualTo(3);
        assertThat(TestEnvironment.redis().opsForSet().members(CouponKeys.eligible(id)))
                .containsExactlyInAnyOrder("kept-1", "kept-2", "kept-3");
    }

    /** {@code count} distinct member ids of {@code width} digits, one per line: {@code width + 1} bytes each. */
    private static String lines(int count, int width) {
        return IntStream.range(0, count)
                .mapToObj(i -> String.format("%0" + width + "d\n", i))
                .collect(Collectors.joining());
    }

    @Test
    void shouldRefuseABodyOverTheByteCap() {
        String body = lines(70, 64); // 4,550 bytes in 70 lines: only the byte cap is passed
        assertThat(body.length()).isGreaterThan(MAX_BYTES);

        expectProblem(upload(body), 413, "PAYLOAD_TOO_LARGE")
                .jsonPath("$.cap")
                .isEqualTo("COUPON_ELIGIBILITY_MAX_BYTES");
        expectProblem(uploadChunked(body), 413, "PAYLOAD_TOO_LARGE")
                .jsonPath("$.cap")
                .isEqualTo("COUPON_ELIGIBILITY_MAX_BYTES");
        assertListKept();
    }

    @Test
    void shouldRefuseALineLongerThanTheLineCapAtOnce() {
        expectProblem(upload("ok-1\n" + "a".repeat(2000) + "\nok-2\n"), 400, "INVALID_REQUEST")
                .jsonPath("$.cap")
                .isEqualTo("line length")
                .jsonPath("$.detail")
                .value(detail -> assertThat((String) detail).contains("Line 2").contains("1024 bytes"));
        assertListKept();
    }

    @Test
    void shouldRefuseMoreLinesThanTheLineCap() {
        String body = lines(MAX_LINES + 1, 5); // 1,806 bytes
        assertThat(body.length()).isLessThan(MAX_BYTES);

        expectProblem(upload(body), 400, "INVALID_REQUEST").jsonPath("$.cap").isEqualTo("COUPON_ELIGIBILITY_MAX_LINES");
        assertListKept();
        upload(lines(MAX_LINES, 5))
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.count")
                .isEqualTo(MAX_LINES);
    }

    @Test
    void shouldRefuseAnUploadThatWouldTakeTheTemporaryDiskOverItsCap() {
        MeterRegistry meters = capped.getBean(MeterRegistry.class);
        String held = lines(50, 64); // 3,250 bytes, declared
        CompletableFuture<Void> rest = new CompletableFuture<>();
        int port = ((WebServerApplicationContext) capped).getWebServer().getPort();
        CompletableFuture<ResponseEntity<String>> firstAnswer = WebClient.create("http://127.0.0.1:" + port)
                .put()
                .uri("/admin/v1/coupons/{id}/eligible-members", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.TEXT_PLAIN)
                .contentLength(held.length())
                .body(
                        Flux.concat(
                                Mono.just(held.substring(0, 650)),
                                Mono.fromFuture(rest).then(Mono.just(held.substring(650)))),
                        String.class)
                .retrieve()
                .toEntity(String.class)
                .toFuture();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> meters.get("coupon.eligibility.upload.temp.bytes")
                                .gauge()
                                .value()
                        >= held.length());

        // 3,250 held + 2,925 more > 6,000: refused at once, and nothing replaced
        expectProblem(upload(lines(45, 64)), 413, "PAYLOAD_TOO_LARGE")
                .jsonPath("$.cap")
                .isEqualTo("COUPON_ELIGIBILITY_MAX_TEMP_BYTES");
        assertListKept();

        rest.complete(null);
        ResponseEntity<String> answer = firstAnswer.join();
        assertThat(answer.getStatusCode().value()).isEqualTo(200);
        assertThat(answer.getBody()).contains("\"count\":50");
        await().atMost(Duration.ofSeconds(60))
                .until(() -> meters.get("coupon.eligibility.upload.temp.bytes")
                                .gauge()
                                .value()
                        == 0);
        upload(lines(45, 64)).expectStatus().isOk();
    }
}
