package com.flashcoupon.worker.notify;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.contract.IssueResult;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.json.JsonMapper;

/** Retries, {@code Retry-After} and the webhook provider against a real local HTTP server. */
class PushSenderTest {

    private static final NotifyProperties.Retry RETRY =
            new NotifyProperties.Retry(4, Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(5));

    private final FakePushServer fake = new FakePushServer();
    private final List<Duration> pauses = new ArrayList<>();

    @AfterEach
    void stop() {
        fake.close();
    }

    private static Push push(String token) {
        var result = new IssueResult("7:m-1", 7, "m-1", 1, IssueResult.Outcome.ISSUED, 99L, null, 1_700_000_000_000L);
        return new Push(result, new Device(token, "WEB"));
    }

    private PushSender webhookSender() {
        var provider = new WebhookProvider(
                HttpClient.newHttpClient(),
                URI.create(fake.url() + "/hook"),
                "Bearer hook-secret",
                Duration.ofSeconds(5),
                Clock.systemUTC());
        return new PushSender(provider, RETRY, pauses::add);
    }

    @Nested
    class Webhook {

        @Test
        void shouldPostTheResultAsJsonWhenDelivering() throws Exception {
            Delivery delivery = webhookSender().send(push("web-1"));

            assertThat(delivery.kind()).isEqualTo(Delivery.Kind.DELIVERED);
            FakePushServer.Received request = fake.received().getFirst();
            assertThat(request.method()).isEqualTo("POST");
            assertThat(request.path()).isEqualTo("/hook");
            assertThat(request.headers()).containsEntry("authorization", "Bearer hook-secret");
            assertThat(JsonMapper.builder().build().readValue(request.body(), Map.class))
                    .containsEntry("eventId", "7:m-1")
                    .containsEntry("deviceToken", "web-1")
                    .containsEntry("platform", "WEB")
                    .containsEntry("memberId", "m-1")
                    .containsEntry("couponId", 7)
                    .containsEntry("outcome", "ISSUED")
                    .containsEntry("walletCouponId", 99);
        }

        @Test
        void shouldWaitRetryAfterThenDeliverWhenTheProviderAnswers429() throws Exception {
            fake.script("web-2", new FakePushServer.Answer(429, Map.of("Retry-After", "2"), "{}"));

            Delivery delivery = webhookSender().send(push("web-2"));

            assertThat(delivery.kind()).isEqualTo(Delivery.Kind.DELIVERED);
            assertThat(fake.receivedFor("web-2")).hasSize(2);
            assertThat(pauses).containsExactly(Duration.ofSeconds(2));
        }

        @Test
        void shouldBackOffDoublingUpToTheCapAndGiveUpWhenItKeepsFailing() throws Exception {
            var down = new FakePushServer.Answer(503, Map.of(), "down");
            fake.script("web-3", down, down, down, down, down);

            Delivery delivery = webhookSender().send(push("web-3"));

            assertThat(delivery.kind()).isEqualTo(Delivery.Kind.RETRY);
            assertThat(fake.receivedFor("web-3")).hasSize(4);
            assertThat(pauses).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200), Duration.ofMillis(250));
        }

        @Test
        void shouldReportUnregisteredWhenTheWebhookAnswers410() throws Exception {
            fake.script("web-4", new FakePushServer.Answer(410, Map.of(), "gone"));

            assertThat(webhookSender().send(push("web-4")).kind()).isEqualTo(Delivery.Kind.UNREGISTERED);
            assertThat(fake.receivedFor("web-4")).hasSize(1);
        }

        @Test
        void shouldRejectWithoutRetryWhenTheWebhookAnswers400() throws Exception {
            fake.script("web-5", new FakePushServer.Answer(400, Map.of(), "bad"));

            assertThat(webhookSender().send(push("web-5")).kind()).isEqualTo(Delivery.Kind.REJECTED);
            assertThat(fake.receivedFor("web-5")).hasSize(1);
        }
    }

    @Nested
    class RetryAfter {

        private final Instant now = Instant.parse("2026-11-27T00:00:00Z");

        @Test
        void shouldReadSecondsAndHttpDatesWhenGiven() {
            assertThat(HttpAnswers.retryAfter(Optional.of("7"), now)).contains(Duration.ofSeconds(7));
            assertThat(HttpAnswers.retryAfter(Optional.of("Fri, 27 Nov 2026 00:00:30 GMT"), now))
                    .contains(Duration.ofSeconds(30));
            assertThat(HttpAnswers.retryAfter(Optional.of("soon"), now)).isEmpty();
            assertThat(HttpAnswers.retryAfter(Optional.empty(), now)).isEmpty();
        }

        @Test
        void shouldCapAndNeverShortenTheBackOffWhenHonouringRetryAfter() {
            var sender = new PushSender(p -> Delivery.delivered(), RETRY, pause -> {});

            assertThat(sender.pause(Duration.ofMillis(100), Duration.ofSeconds(60)))
                    .isEqualTo(Duration.ofSeconds(5));
            assertThat(sender.pause(Duration.ofMillis(100), Duration.ZERO)).isEqualTo(Duration.ofMillis(100));
            assertThat(sender.pause(Duration.ofMillis(100), null)).isEqualTo(Duration.ofMillis(100));
        }
    }
}
