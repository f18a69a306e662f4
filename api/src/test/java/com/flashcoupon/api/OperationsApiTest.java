package com.flashcoupon.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.MediaType;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** What operators and their tools reach: the console, the OpenAPI document, health, request ids in the logs. */
@ApiTest
class OperationsApiTest extends ApiTestBase {

    @Nested
    class Console {

        @Test
        void shouldServeTheConsoleWithoutATokenWhenAskedForAdmin() {
            String page = client().get()
                    .uri("/admin/")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectHeader()
                    .contentTypeCompatibleWith(MediaType.TEXT_HTML)
                    .expectBody(String.class)
                    .returnResult()
                    .getResponseBody();
            assertThat(page).contains("operator console", "console.js");
            client().get().uri("/admin/console.js").exchange().expectStatus().isOk();
            client().get().uri("/admin/console.css").exchange().expectStatus().isOk();
        }

        @Test
        void shouldRedirectToTheSlashWhenAskedForAdminWithoutIt() {
            client().get()
                    .uri("/admin")
                    .exchange()
                    .expectStatus()
                    .isPermanentRedirect()
                    .expectHeader()
                    .valueEquals("Location", "/admin/");
        }

        @Test
        void shouldStillRequireAnOperatorTokenWhenTheConsoleCallsTheAdminApi() {
            client().get().uri("/admin/v1/coupons").exchange().expectStatus().isUnauthorized();
            client().get()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken("m-1"))
                    .exchange()
                    .expectStatus()
                    .isForbidden();
        }
    }

    @Nested
    class OpenApi {

        /** docs/http-api.md, every endpoint with the status codes it names (the common ones come from OpenApiConfig). */
        private static final List<Endpoint> CONTRACT = List.of(
                new Endpoint(
                        "post",
                        "/api/v1/coupons/{couponId}/issue-requests",
                        "200",
                        "202",
                        "401",
                        "404",
                        "409",
                        "429",
                        "503"),
                new Endpoint("get", "/api/v1/coupons/{couponId}/issue-requests/me", "200", "401", "404"),
                new Endpoint("get", "/api/v1/coupons/{couponId}", "200", "401", "404"),
                new Endpoint("post", "/admin/v1/coupons", "201", "400", "401", "403", "413"),
                new Endpoint("get", "/admin/v1/coupons", "200", "401", "403"),
                new Endpoint("get", "/admin/v1/coupons/{couponId}", "200", "401", "403", "404"),
                new Endpoint("patch", "/admin/v1/coupons/{couponId}", "200", "400", "401", "403", "404"),
                new Endpoint("post", "/admin/v1/coupons/{couponId}/close", "200", "401", "403", "404"),
                new Endpoint("get", "/admin/v1/overload", "200", "401", "403"),
                new Endpoint("get", "/api/v1/coupons/{couponId}/issue-requests/me/events", "200", "401", "404"),
                new Endpoint("get", "/api/v1/me/coupons", "200", "401"),
                new Endpoint(
                        "post", "/api/v1/me/coupons/{walletCouponId}/use", "200", "400", "401", "404", "409", "413"),
                new Endpoint("put", "/api/v1/me/devices/{deviceToken}", "204", "400", "401"),
                new Endpoint("delete", "/api/v1/me/devices/{deviceToken}", "204", "400", "401"));

        @Test
        void shouldDescribeEveryEndpointOfTheContractWithItsStatusCodesWhenAskedWithoutAToken() {
            JsonNode paths = openApiPaths();

            List<Endpoint> expected = new ArrayList<>(CONTRACT);
            List<String> missing = new ArrayList<>();
            for (Endpoint endpoint : expected) {
                JsonNode operation = paths.path(endpoint.path()).path(endpoint.method());
                if (operation.isMissingNode()) {
                    missing.add(endpoint.method().toUpperCase() + " " + endpoint.path());
                    continue;
                }
                Set<String> codes =
                        operation.path("responses").propertyNames().stream().collect(Collectors.toSet());
                for (String code : endpoint.codes()) {
                    if (!codes.contains(code)) {
                        missing.add(endpoint.method().toUpperCase() + " " + endpoint.path() + " " + code);
                    }
                }
            }
            assertThat(missing)
                    .as("endpoints or status codes missing from /v3/api-docs")
                    .isEmpty();
        }

        @Test
        void shouldDescribeErrorsAsProblemsWhenAnOperationCanFail() {
            String body = client().get()
                    .uri("/v3/api-docs")
                    .exchange()
                    .expectBody(String.class)
                    .returnResult()
                    .getResponseBody();
            JsonNode conflict = JsonMapper.builder()
                    .build()
                    .readTree(body)
                    .at("/paths/~1api~1v1~1coupons~1{couponId}~1issue-requests/post/responses/409/content");
            assertThat(conflict.has("application/problem+json")).isTrue();
        }

        @Test
        void shouldServeTheBrowsableUiWithoutAToken() {
            client().get()
                    .uri("/swagger-ui.html")
                    .exchange()
                    .expectStatus()
                    .value(status -> assertThat(status).isIn(200, 302, 307));
            client().get()
                    .uri("/webjars/swagger-ui/index.html")
                    .exchange()
                    .expectStatus()
                    .isOk();
        }

        record Endpoint(String method, String path, String... codes) {}
    }

    @Nested
    class Health {

        @Test
        void shouldReportHealthReadinessAndLivenessWithoutAToken() {
            client().get()
                    .uri("/actuator/health/readiness")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("UP");
            client().get()
                    .uri("/actuator/health/liveness")
                    .exchange()
                    .expectStatus()
                    .isOk();
            client().get().uri("/actuator/health").exchange().expectStatus().isOk();
        }

        @Test
        void shouldServeMetricsWithoutATokenByDefault() {
            // the shared context has met hundreds of coupons and routes: the scrape is larger than the default buffer
            client().mutate()
                    .codecs(codecs -> codecs.defaultCodecs().maxInMemorySize(16 << 20))
                    .build()
                    .get()
                    .uri("/actuator/prometheus")
                    .exchange()
                    .expectStatus()
                    .isOk()
                    .expectBody(String.class)
                    .value(body -> assertThat(body).contains("jvm_memory_used_bytes"));
        }
    }

    @Nested
    @ExtendWith(OutputCaptureExtension.class)
    class RequestIds {

        @Test
        void shouldEchoTheCallersRequestIdAndPutItOnTheRequestsLogLines(CapturedOutput output) {
            long id = Long.parseLong(String.valueOf(client().post()
                    .uri("/admin/v1/coupons")
                    .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                    .header("X-Request-Id", "req-test-4711")
                    .contentType(MediaType.APPLICATION_JSON)
                    .bodyValue(Map.of(
                            "name",
                            "Logged",
                            "totalQuantity",
                            10,
                            "openAt",
                            Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                            "issueRatePerSecond",
                            10))
                    .exchange()
                    .expectStatus()
                    .isCreated()
                    .expectHeader()
                    .valueEquals("X-Request-Id", "req-test-4711")
                    .expectBody(Map.class)
                    .returnResult()
                    .getResponseBody()
                    .get("id")));

            List<String> lines = output.getOut()
                    .lines()
                    .filter(line -> line.contains("coupon " + id + " created"))
                    .toList();
            assertThat(lines).isNotEmpty().allMatch(line -> line.contains("[req-test-4711]"));
        }

        @Test
        void shouldMakeARequestIdWhenTheCallerSentNoneOrAnUnsafeOne() {
            client().get().uri("/admin/").exchange().expectHeader().valueMatches("X-Request-Id", "[0-9a-f]{16}");
            client().get()
                    .uri("/admin/")
                    .header("X-Request-Id", "bad id\twith spaces")
                    .exchange()
                    .expectHeader()
                    .valueMatches("X-Request-Id", "[0-9a-f]{16}");
        }
    }
}
