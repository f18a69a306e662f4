package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.test.web.reactive.server.WebTestClient;

/**
 * The operator's view of a flash event, with the api and the worker running: the console driven in Debian's headless
 * Chromium (screenshots in {@code target/screenshots/}), and the Prometheus metrics of both apps after a crowd.
 */
class OperatorViewTest {

    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    /**
     * The worker ships without Spring Security; in this one-JVM stack the api's puts it on the worker's classpath too,
     * where Boot's defaults would lock its actuator. Leave the worker as it runs in production.
     */
    private static final String WORKER_NO_SECURITY = String.join(
            ",",
            "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
            "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration");

    private static Stack stack;
    private static WebTestClient http;

    @BeforeAll
    static void start() {
        stack = new Stack(
                Map.of("coupon.drain.tick", "100ms"), Map.of("spring.autoconfigure.exclude", WORKER_NO_SECURITY));
        http = stack.http();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    @Test
    void shouldLetAnOperatorCreateWatchSlowDownAndCloseAnEventInTheConsole() throws Exception {
        assertThat(CHROMIUM)
                .as("Debian's chromium (apt-get install chromium chromium-driver; bin/test does)")
                .exists();
        assertThat(CHROMEDRIVER).as("Debian's chromium-driver").exists();
        WebDriver browser = chromium();
        try {
            var wait = new WebDriverWait(browser, Duration.ofSeconds(60));
            browser.get(stack.apiUrl() + "/admin/");
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
            screenshot(browser, "01-sign-in");

            // sign in with an operator's token
            browser.findElement(By.id("token")).sendKeys(Stack.token("operator-1", List.of("coupon-admin")));
            browser.findElement(By.id("sign-in")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("create-form")));

            // a wrong field: the API's message appears next to it
            type(browser, "name", "Console flash sale");
            type(browser, "totalQuantity", "0");
            type(browser, "issueRatePerSecond", "20");
            browser.findElement(By.id("create")).click();
            wait.until(
                    ExpectedConditions.textMatches(By.id("err-totalQuantity"), java.util.regex.Pattern.compile(".+")));
            assertThat(text(browser, "err-totalQuantity")).contains("greater than or equal to 1");
            assertThat(browser.findElement(By.id("totalQuantity")).getDomAttribute("aria-invalid"))
                    .isEqualTo("true");
            screenshot(browser, "02-create-validation-message");

            // right: the event is created and its live panel opens
            type(browser, "totalQuantity", "300");
            browser.findElement(By.id("create")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("panel-title"), "Console flash sale"));
            long couponId = Long.parseLong(text(browser, "panel-title").replaceAll("^#(\\d+).*$", "$1"));
            assertThat(text(browser, "err-totalQuantity")).isEmpty();
            assertThat(text(browser, "panel-window")).contains("first come, first served");

            // a small crowd over HTTP: the counters move on their own
            // (on a loaded machine an answer or two may be 503, Redis timing out after it may have admitted the
            // member: those members ask again, and the panel must match what everyone was told in the end)
            List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, Crowd.members("console", 400), 0, 16);
            List<Crowd.Answer> again =
                    Crowd.askAgain(stack.apiUrl(), couponId, answers, Set.of(503), Duration.ofSeconds(60));
            Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
            Map<Integer, Long> againByStatus = Crowd.countByStatus(again);
            long accepted = byStatus.getOrDefault(202, 0L)
                    + againByStatus.getOrDefault(202, 0L)
                    + againByStatus.getOrDefault(200, 0L);
            long soldOut = byStatus.getOrDefault(409, 0L) + againByStatus.getOrDefault(409, 0L);
            assertThat(accepted).isPositive();
            wait.until(driver -> stat(driver, "admitted") == accepted && stat(driver, "rejectedSoldOut") == soldOut);
            wait.until(driver -> stat(driver, "issued") > 0);
            Thread.sleep(1_500); // a few more polls, so the chart has a line
            screenshot(browser, "03-event-draining");

            // speed issuance up: the rate control answers and the queue empties
            type(browser, "rate-input", "2000");
            browser.findElement(By.id("rate-set")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("rate-now"), "2,000"));
            wait.until(driver -> stat(driver, "issued") == accepted && stat(driver, "waiting") == 0);
            assertThat(stat(browser, "published")).isEqualTo(accepted);
            screenshot(browser, "04-rate-changed-all-issued");

            // close, after confirming
            browser.findElement(By.id("close")).click();
            wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("confirm-dialog")));
            assertThat(text(browser, "confirm-text")).contains("Close event #" + couponId);
            screenshot(browser, "05-close-confirmation");
            browser.findElement(By.id("confirm-close")).click();
            wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("panel-status"), "CLOSED"));
            assertThat(browser.findElement(By.id("close")).isEnabled()).isFalse();
            screenshot(browser, "06-closed");
            browser.manage().window().setSize(new Dimension(390, 1400)); // a phone's width
            screenshot(browser, "07-closed-on-a-phone");

            // what the console did is what the API holds
            http.get()
                    .uri("/admin/v1/coupons/{id}", couponId)
                    .header("Authorization", "Bearer " + Stack.token("operator-1", List.of("coupon-admin")))
                    .exchange()
                    .expectBody()
                    .jsonPath("$.status")
                    .isEqualTo("CLOSED")
                    .jsonPath("$.issueRatePerSecond")
                    .isEqualTo(2000)
                    .jsonPath("$.stats.issued")
                    .isEqualTo((int) accepted);
        } finally {
            browser.quit();
        }
    }

    @Test
    void shouldExposeTheOperatorsMetricsWithPlausibleValuesAfterACrowd() {
        Prometheus apiBefore = scrape(stack.apiUrl());
        long couponId = stack.createCoupon("Metrics", 200, 5_000);

        // On a loaded machine a few answers may be 503 (Redis timed out); the checks below hold whatever the mix.
        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, Crowd.members("metrics", 260), 40, 16);
        Map<Integer, Long> byStatus = Crowd.countByStatus(answers);
        long accepted = byStatus.getOrDefault(202, 0L);
        assertThat(accepted).isPositive();
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.issuedCount(couponId) >= accepted);

        String coupon = Long.toString(couponId);
        // the gauges refresh every 2 s: wait for this coupon's series to show the drained queue
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Prometheus api = scrape(stack.apiUrl());
            assertThat(api.has("coupon_queue_waiting")).isTrue();
            assertThat(api.sum("coupon_queue_waiting", Map.of("coupon", coupon)))
                    .isZero();
            assertThat(api.sum("coupon_drain_lag", Map.of("coupon", coupon))).isZero();
            assertThat(api.samples())
                    .anyMatch(s -> s.name().equals("coupon_drain_lag")
                            && coupon.equals(s.labels().get("coupon")));
        });

        Prometheus api = scrape(stack.apiUrl());
        // admissions by outcome: ADMITTED counts exactly the 202s, SOLD_OUT the 409s, ALREADY_ASKED the 200s
        assertThat(delta(apiBefore, api, "coupon_admissions_total", Map.of("outcome", "ADMITTED")))
                .isEqualTo(accepted);
        assertThat(delta(apiBefore, api, "coupon_admissions_total", Map.of("outcome", "SOLD_OUT")))
                .isEqualTo(byStatus.getOrDefault(409, 0L));
        assertThat(delta(apiBefore, api, "coupon_admissions_total", Map.of("outcome", "ALREADY_ASKED")))
                .isEqualTo(byStatus.getOrDefault(200, 0L));
        // latency histogram: one observation per answer, in buckets
        assertThat(delta(apiBefore, api, "coupon_admission_latency_seconds_count", Map.of()))
                .isEqualTo(answers.size());
        assertThat(api.has("coupon_admission_latency_seconds_bucket")).isTrue();
        assertThat(api.sum("coupon_admission_latency_seconds_max")).isPositive();
        assertThat(delta(apiBefore, api, "coupon_drain_published_total", Map.of()))
                .isGreaterThanOrEqualTo(accepted);

        Prometheus worker = scrape(workerUrl());
        assertThat(worker.sum("coupon_worker_issued_total")).isGreaterThanOrEqualTo(accepted);
        assertThat(worker.sum("coupon_worker_batch_size_records_count")).isPositive();
        assertThat(worker.has("coupon_worker_batch_size_records_bucket")).isTrue();
        assertThat(worker.sum("coupon_worker_write_latency_seconds_count")).isPositive();
        assertThat(worker.has("coupon_worker_write_latency_seconds_bucket")).isTrue();
        assertThat(worker.has("coupon_worker_dead_lettered_total")).isTrue();
        assertThat(worker.sum("coupon_worker_dead_lettered_total")).isZero();
        assertThat(worker.has("kafka_consumer_fetch_manager_records_lag_max"))
                .as("consumer lag from the Kafka client's metrics")
                .isTrue();

        for (String url : List.of(stack.apiUrl(), workerUrl())) {
            WebTestClient.bindToServer()
                    .baseUrl(url)
                    .build()
                    .get()
                    .uri("/actuator/health/readiness")
                    .exchange()
                    .expectStatus()
                    .isOk();
        }
    }

    private static long delta(Prometheus before, Prometheus after, String name, Map<String, String> labels) {
        return Math.round(after.sum(name, labels) - before.sum(name, labels));
    }

    private static Prometheus scrape(String baseUrl) {
        String text = WebTestClient.bindToServer()
                .baseUrl(baseUrl)
                .build()
                .get()
                .uri("/actuator/prometheus")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody(String.class)
                .returnResult()
                .getResponseBody();
        return Prometheus.parse(text);
    }

    private static String workerUrl() {
        return "http://127.0.0.1:"
                + ((WebServerApplicationContext) stack.worker).getWebServer().getPort();
    }

    /** Debian's Chromium, headless, with the flags this machine needs (no background calls to Google's hosts). */
    private static WebDriver chromium() throws IOException {
        Path profile = Files.createTempDirectory("chromium-profile");
        var options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--user-data-dir=" + profile,
                "--window-size=1280,1500",
                "--lang=en-US");
        var service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    private static void type(WebDriver browser, String id, String value) {
        WebElement field = browser.findElement(By.id(id));
        field.clear();
        field.sendKeys(value);
    }

    private static String text(WebDriver browser, String id) {
        return browser.findElement(By.id(id)).getText();
    }

    private static long stat(WebDriver browser, String name) {
        String shown = browser.findElement(By.cssSelector("#panel [data-stat='" + name + "']"))
                .getText()
                .replaceAll("[^0-9]", "");
        return shown.isEmpty() ? -1 : Long.parseLong(shown);
    }

    private static void screenshot(WebDriver browser, String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Path shot = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE).toPath();
        Files.copy(shot, SCREENSHOTS.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }
}
