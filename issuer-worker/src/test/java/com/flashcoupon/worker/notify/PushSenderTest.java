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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import tools.jackson.databind.json.JsonMapper;

/** Retries, {@code Retry-After} and the webhook provider against a real local HTTP server. */
class PushSenderTest {

    private static final NotifyProperties.Retry RETRY =
            new NotifyProperties.Retry(4, Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofSeconds(5));

    /** Provider calls run here, as in the notifier. */
    static final ExecutorService ATTEMPTS = Executors.newVirtualThreadPerTaskExecutor();

    private final FakePushServer fake = new FakePushServer();
    private final List<Duration> pauses = new ArrayList<>();

    @AfterEach
    void stop() {
        fake.close();
    }

    /** The notifier's default settings (5 attempts, Retry-After honoured up to 60 s) but for the two times. */
    static NotifyProperties properties(Duration claimTimeout, Duration requestTimeout) {
        return new NotifyProperties(
                NotifyProperties.Provider.WEBHOOK,
                3,
                claimTimeout,
                requestTimeout,
                20,
                new NotifyProperties.Redelivery(Duration.ofSeconds(30), 20),
                new NotifyProperties.Retry(5, Duration.ofMillis(200), Duration.ofSeconds(10), Duration.ofSeconds(60)),
                new NotifyProperties.Fcm(URI.create("https://fcm.googleapis.com"), null, null),
                new NotifyProperties.Webhook(null, null));
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
        return new PushSender(provider, RETRY, Duration.ofSeconds(5), Duration.ofHours(1), pauses::add, ATTEMPTS);
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
    class Budget {

        /** The defaults: a claim of 60 s, 10 s per call. */
        private final NotifyProperties defaults = properties(Duration.ofSeconds(60), Duration.ofSeconds(10));

        @Test
        void shouldEndWithinTheClaimWhenTheProviderKeepsAnswering429WithALongRetryAfter() throws Exception {
            List<Integer> calls = new ArrayList<>();
            PushProvider throttled = p -> {
                calls.add(1);
                return Delivery.retry(Duration.ofSeconds(60), "429");
            };
            var sender = new PushSender(
                    throttled,
                    defaults.retry(),
                    defaults.requestTimeout(),
                    defaults.pushBudget(),
                    pauses::add,
                    ATTEMPTS);

            assertThat(sender.send(push("slow-1")).kind()).isEqualTo(Delivery.Kind.RETRY);

            // every call counted at its whole time-out: the worst this push could have taken
            Duration worstCase = defaults.requestTimeout().multipliedBy(calls.size());
            for (Duration pause : pauses) {
                worstCase = worstCase.plus(pause);
            }
            assertThat(worstCase).isLessThanOrEqualTo(defaults.pushBudget()).isLessThan(defaults.claimTimeout());
        }

        @Test
        void shouldStillRetryShortPausesWithinTheBudget() throws Exception {
            List<Integer> calls = new ArrayList<>();
            PushProvider flaky = p -> {
                calls.add(1);
                return calls.size() < 3 ? Delivery.retry(Duration.ofSeconds(2), "429") : Delivery.delivered();
            };
            var sender = new PushSender(
                    flaky, defaults.retry(), defaults.requestTimeout(), defaults.pushBudget(), pauses::add, ATTEMPTS);

            assertThat(sender.send(push("slow-2")).kind()).isEqualTo(Delivery.Kind.DELIVERED);
            assertThat(pauses).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(2));
        }

        @Test
        void shouldSizeThePollIntervalFromTheWorstCaseOfEveryRecordItFetches() {
            var factory = new NotifyConfig().notifyContainerFactory(new KafkaProperties(), defaults);
            Map<String, Object> consumer = factory.getConsumerFactory().getConfigurationProperties();
            long records = ((Number) consumer.get(ConsumerConfig.MAX_POLL_RECORDS_CONFIG)).longValue();
            long interval =
                    ((Number) consumer.getOrDefault(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, 300_000)).longValue();

            // a record: pushes started within one budget, the last one ending within another
            long recordWorstCase = defaults.pushBudget().multipliedBy(2).toMillis();
            assertThat(interval).isGreaterThan(records * recordWorstCase);
        }
    }

    /**
     * No attempt outlives the request time-out, whatever it waits for: an FCM access token being refreshed (Google's own
     * HTTP call, with its own time-outs) or an answer whose body never ends (the HTTP client's time-out ends with the
     * headers). Before, either kept the push going past its budget and its claim. Each test fails rather than hangs
     * when an attempt is not cut: a minute is many times what it needs.
     */
    @Nested
    class AttemptDeadline {

        private final Duration requestTimeout = Duration.ofMillis(500);
        private final NotifyProperties.Retry twice =
                new NotifyProperties.Retry(2, Duration.ofMillis(10), Duration.ofMillis(10), Duration.ofSeconds(1));
        private final java.util.concurrent.CountDownLatch never = new java.util.concurrent.CountDownLatch(1);

        @AfterEach
        void release() {
            never.countDown();
        }

        private PushSender fcm(java.util.function.Supplier<String> accessTokens) {
            var provider = new FcmProvider(
                    HttpClient.newHttpClient(),
                    URI.create(fake.url()),
                    "demo-project",
                    accessTokens,
                    requestTimeout,
                    Clock.systemUTC());
            return new PushSender(provider, twice, requestTimeout, Duration.ofSeconds(30), pauses::add, ATTEMPTS);
        }

        @Test
        void shouldGiveUpAnAttemptWhoseAccessTokenDoesNotComeInTime() {
            PushSender sender = fcm(() -> {
                try {
                    never.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return "late-token";
            });

            Delivery delivery = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    Duration.ofMinutes(1), () -> sender.send(push("fcm-slow-token")));

            assertThat(delivery.kind()).isEqualTo(Delivery.Kind.RETRY);
            assertThat(delivery.detail()).contains("no complete answer");
            assertThat(fake.receivedFor("fcm-slow-token")).isEmpty();
        }

        @Test
        void shouldGiveUpAnAttemptWhoseAnswerBodyNeverEnds() {
            fake.script("fcm-stalled", FakePushServer.Answer.stalling(), FakePushServer.Answer.stalling());
            PushSender sender = fcm(() -> "token");

            Delivery delivery = org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
                    Duration.ofMinutes(1), () -> sender.send(push("fcm-stalled")));

            assertThat(delivery.kind()).isEqualTo(Delivery.Kind.RETRY);
            // Each attempt is given up after 500 ms whether or not its request got out: on an idle machine both reach
            // the server, but under load the second was given up before the HTTP client had written it (a clean-clone
            // run beside another, load 26: the server saw one). What holds either way: the first reached it, no
            // attempt hung, and no more than the two attempts allowed were made.
            org.awaitility.Awaitility.await()
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> !fake.receivedFor("fcm-stalled").isEmpty());
            assertThat(fake.receivedFor("fcm-stalled")).hasSizeBetween(1, 2);
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
            var sender = new PushSender(
                    p -> Delivery.delivered(),
                    RETRY,
                    Duration.ofSeconds(5),
                    Duration.ofHours(1),
                    pause -> {},
                    ATTEMPTS);

            assertThat(sender.pause(Duration.ofMillis(100), Duration.ofSeconds(60)))
                    .isEqualTo(Duration.ofSeconds(5));
            assertThat(sender.pause(Duration.ofMillis(100), Duration.ZERO)).isEqualTo(Duration.ofMillis(100));
            assertThat(sender.pause(Duration.ofMillis(100), null)).isEqualTo(Duration.ofMillis(100));
        }
    }
}
