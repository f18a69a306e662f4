package com.flashcoupon.api.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TestEnvironment;
import com.netflix.concurrency.limits.Limiter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.http.MediaType;
import org.springframework.http.server.reactive.HttpHandler;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.http.server.reactive.MockServerHttpResponse;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.test.StepVerifier;

/**
 * The overload guard with a fixed limit of two (min = max = 2): member requests over it are answered 503 at once with
 * {@code Retry-After} and the contract's problem, having done nothing; health, admin and the live streams are never
 * limited; every permit comes back exactly once, whether its request completed, failed, threw or was abandoned by its
 * client. Requests are held open by {@link HeldController}.
 */
@ApiTest
@Import(HeldController.class)
@TestPropertySource(
        properties = {
            "coupon.overload.initial-limit=2",
            "coupon.overload.min-limit=2",
            "coupon.overload.max-limit=2",
            "coupon.overload.retry-after=3s"
        })
class OverloadGuardTest extends ApiTestBase {

    private static final AtomicInteger NAMES = new AtomicInteger();
    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 (\\d{3}) ");

    @LocalServerPort
    int port;

    @Autowired
    HeldController held;

    @Autowired
    OverloadGuard guard;

    @Autowired
    MeterRegistry meters;

    private final List<String> holding = new ArrayList<>();
    private final List<Disposable> clients = new ArrayList<>();

    @AfterEach
    void releaseEverything() {
        holding.forEach(held::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
        clients.forEach(Disposable::dispose);
    }

    @Test
    void shouldRefuseAMemberOverTheLimitAtOnceWith503AndRetryAfterHavingDoneNothing() {
        long coupon = createCoupon(10, 10);
        holdTwo();
        double refusedBefore = refused();

        requestCoupon(coupon, "over-1")
                .expectStatus()
                .isEqualTo(503)
                .expectHeader()
                .valueEquals("Retry-After", "3")
                .expectHeader()
                .contentType(MediaType.APPLICATION_PROBLEM_JSON)
                .expectHeader()
                .exists("X-Request-Id")
                .expectBody()
                .jsonPath("$.code")
                .isEqualTo("UNAVAILABLE")
                .jsonPath("$.status")
                .isEqualTo(503)
                .jsonPath("$.type")
                .isEqualTo("https://flash-coupon.dev/problems/unavailable")
                .jsonPath("$.detail")
                .value(containsString("nothing was done"));
        // every member endpoint is behind the limit, not only admission
        client().get()
                .uri("/api/v1/me/coupons")
                .header("Authorization", "Bearer " + TestEnvironment.memberToken("over-1"))
                .exchange()
                .expectStatus()
                .isEqualTo(503);

        assertThat(refused()).isEqualTo(refusedBefore + 2);
        assertThat(inFlight()).isEqualTo(2);

        releaseHeld();
        // nothing was admitted: the coupon counts no one and the member has no request...
        admin().get()
                .uri("/admin/v1/coupons/{id}", coupon)
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.stats.admitted")
                .isEqualTo(0);
        expectProblem(
                client().get()
                        .uri("/api/v1/coupons/{id}/issue-requests/me", coupon)
                        .header("Authorization", "Bearer " + TestEnvironment.memberToken("over-1"))
                        .exchange(),
                404,
                "REQUEST_NOT_FOUND");
        // ...and with the permits back, the same member is admitted
        requestCoupon(coupon, "over-1").expectStatus().isAccepted();
    }

    @Test
    void shouldKeepHealthAdminAndLiveStreamsOutOfTheLimit() {
        long coupon = createCoupon(10, 10);
        holdTwo();
        double refusedBefore = refused();

        client().get().uri("/actuator/health").exchange().expectStatus().isOk();
        client().get()
                .uri("/actuator/health/readiness")
                .exchange()
                .expectStatus()
                .isOk();
        admin().get()
                .uri("/admin/v1/coupons/{id}", coupon)
                .exchange()
                .expectStatus()
                .isOk();
        admin().get()
                .uri("/admin/v1/overload")
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.enabled")
                .isEqualTo(true)
                .jsonPath("$.limit")
                .isEqualTo(2)
                .jsonPath("$.inFlight")
                .isEqualTo(2)
                .jsonPath("$.refused")
                .isEqualTo((long) refusedBefore);
        // a live stream is not limited: this member never asked, so the stream's own answer comes, not a refusal
        expectProblem(
                client().get()
                        .uri("/api/v1/coupons/{id}/issue-requests/me/events", coupon)
                        .header("Authorization", "Bearer " + TestEnvironment.memberToken("over-stream"))
                        .accept(MediaType.TEXT_EVENT_STREAM)
                        .exchange(),
                404,
                "REQUEST_NOT_FOUND");

        assertThat(refused()).isEqualTo(refusedBefore);
    }

    @Test
    void shouldGiveBackThePermitOfEveryFailedRequest() {
        double refusedBefore = refused();
        // twice the limit: a permit kept by a failed request would turn the third into a 503
        for (int i = 0; i < 4; i++) {
            expectProblem(
                    client().get()
                            .uri("/api/v1/failing")
                            .header("Authorization", "Bearer " + TestEnvironment.memberToken("over-failing"))
                            .exchange(),
                    500,
                    "INTERNAL_ERROR");
        }
        assertThat(refused()).isEqualTo(refusedBefore);
        // the answer is on the wire a moment before the exchange completes and gives its permit back
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
    }

    @Test
    void shouldGiveBackThePermitOfARequestWhoseClientWentAway() throws IOException {
        String name = "gone-" + NAMES.incrementAndGet();
        holding.add(name);
        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.getOutputStream()
                    .write(request("GET", "/api/v1/held/" + name).getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 1);
        }
        // the connection closed with the request unanswered: the server cancels it, and its permit comes back
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
        long coupon = createCoupon(10, 10);
        holdTwo();
        requestCoupon(coupon, "over-after-cancel").expectStatus().isEqualTo(503);
    }

    @Test
    void shouldReleaseWhenTheHandlerThrowsFailsOrIsCancelled() {
        MockServerHttpRequest member =
                MockServerHttpRequest.get("/api/v1/anything").build();

        HttpHandler throwing = guard.apply((request, response) -> {
            throw new IllegalStateException("thrown, not returned");
        });
        StepVerifier.create(throwing.handle(member, new MockServerHttpResponse()))
                .expectError(IllegalStateException.class)
                .verify(Duration.ofSeconds(5));
        assertThat(inFlight()).isZero();

        HttpHandler failing = guard.apply((request, response) -> Mono.error(new IllegalStateException("failed")));
        StepVerifier.create(failing.handle(member, new MockServerHttpResponse()))
                .expectError(IllegalStateException.class)
                .verify(Duration.ofSeconds(5));
        assertThat(inFlight()).isZero();

        HttpHandler never = guard.apply((request, response) -> Mono.never());
        StepVerifier.create(never.handle(member, new MockServerHttpResponse()))
                .expectSubscription()
                .then(() -> assertThat(inFlight()).isEqualTo(1))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(inFlight()).isZero();
    }

    @Test
    void shouldReleaseAPermitOnceWhateverSignalsFollow() {
        var calls = new ArrayList<String>();
        var permit = new OverloadGuard.Permit(new Limiter.Listener() {
            @Override
            public void onSuccess() {
                calls.add("success");
            }

            @Override
            public void onIgnore() {
                calls.add("ignore");
            }

            @Override
            public void onDropped() {
                calls.add("dropped");
            }
        });

        permit.release(SignalType.ON_COMPLETE);
        permit.release(SignalType.CANCEL);
        permit.release(SignalType.ON_ERROR);

        assertThat(calls).containsExactly("success");
    }

    @Test
    void shouldAnswerPipelinedRefusalsOnAKeepAliveConnection() throws IOException {
        long coupon = createCoupon(10, 10);
        holdTwo();
        String admission = request("POST", "/api/v1/coupons/" + coupon + "/issue-requests");

        try (Socket socket = new Socket("127.0.0.1", port)) {
            socket.setSoTimeout(30_000); // only a hung connection waits this long
            OutputStream out = socket.getOutputStream();
            InputStream in = socket.getInputStream();
            out.write((admission + admission + admission).getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readStatuses(in, 3)).isEqualTo("503 503 503");

            out.write(admission.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readStatuses(in, 1))
                    .as("a request after the pipelined ones")
                    .isEqualTo("503");
        }
    }

    /** Takes both permits with requests held open until the test ends (or {@link #releaseHeld}). */
    private void holdTwo() {
        WebClient web = WebClient.create("http://127.0.0.1:" + port);
        for (int i = 0; i < 2; i++) {
            String name = "held-" + NAMES.incrementAndGet();
            holding.add(name);
            clients.add(web.get()
                    .uri("/api/v1/held/{name}", name)
                    .header("Authorization", "Bearer " + TestEnvironment.memberToken(name))
                    .retrieve()
                    .toBodilessEntity()
                    .subscribe(answer -> {}, error -> {}));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 2);
    }

    private void releaseHeld() {
        holding.forEach(held::release);
        await().atMost(Duration.ofSeconds(10)).until(() -> inFlight() == 0);
    }

    private org.springframework.test.web.reactive.server.WebTestClient admin() {
        return client().mutate()
                .defaultHeader("Authorization", "Bearer " + TestEnvironment.adminToken())
                .build();
    }

    private double inFlight() {
        return meters.get("coupon.overload.in.flight").gauge().value();
    }

    private double refused() {
        return meters.get("coupon.overload.requests")
                .tag("outcome", "refused")
                .counter()
                .count();
    }

    private static String request(String method, String path) {
        return method + " " + path + " HTTP/1.1\r\nHost: localhost\r\n" + "Authorization: Bearer "
                + TestEnvironment.memberToken("over-raw") + "\r\nContent-Length: 0\r\n\r\n";
    }

    /** Reads until {@code count} status lines arrived (or the socket time-out); returns their codes. */
    private static String readStatuses(InputStream in, int count) throws IOException {
        StringBuilder seen = new StringBuilder();
        List<String> statuses = new ArrayList<>();
        byte[] buffer = new byte[8192];
        try {
            while (statuses.size() < count) {
                int n = in.read(buffer);
                if (n < 0) {
                    break;
                }
                seen.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
                statuses.clear();
                Matcher m = STATUS_LINE.matcher(seen);
                while (m.find()) {
                    statuses.add(m.group(1));
                }
            }
        } catch (SocketTimeoutException e) {
            // fall through: fewer answers than asked for
        }
        return String.join(" ", statuses);
    }
}
