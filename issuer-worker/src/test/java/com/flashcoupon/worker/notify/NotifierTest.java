package com.flashcoupon.worker.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.worker.support.Pipeline;
import com.flashcoupon.worker.support.PipelineTestSupport;
import com.google.auth.oauth2.AccessToken;
import com.google.auth.oauth2.GoogleCredentials;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.json.JsonMapper;

/**
 * The notifier in a full worker with the FCM provider pointed at a real local HTTP server that plays FCM: the exact
 * requests it receives, one per result and device, none for a replayed result, a 429 retried after its Retry-After,
 * unregistered tokens dropped.
 */
@Import(NotifierTest.StaticToken.class)
class NotifierTest extends PipelineTestSupport {

    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final FakePushServer FCM = new FakePushServer();
    private static final String SEND_PATH = "/v1/projects/demo-project/messages:send";

    @Autowired
    JdbcClient jdbc;

    @Value("${spring.embedded.kafka.brokers}")
    String brokers;

    /** Google's library with a fixed token instead of a service account. */
    @TestConfiguration(proxyBeanMethods = false)
    static class StaticToken {
        @Bean
        GoogleCredentials googleCredentials() {
            return GoogleCredentials.create(
                    new AccessToken("test-access-token", new Date(System.currentTimeMillis() + 3_600_000)));
        }
    }

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("coupon.notify.provider", () -> "fcm");
        registry.add("coupon.notify.fcm.base-url", FCM::url);
        registry.add("coupon.notify.fcm.project-id", () -> "demo-project");
        registry.add("coupon.notify.retry.initial-backoff", () -> "50ms");
        registry.add("coupon.notify.max-devices", () -> "3");
        registry.add("coupon.notify.redelivery.delay", () -> "500ms");
        registry.add("coupon.notify.redelivery.attempts", () -> "2");
    }

    @Autowired
    io.micrometer.core.instrument.MeterRegistry meters;

    @AfterAll
    static void stop() {
        FCM.close();
    }

    private void device(String memberId, String token, String platform) {
        jdbc.sql("INSERT INTO member_device (device_token, member_id, platform) VALUES (?, ?, ?)")
                .params(token, memberId, platform)
                .update();
    }

    private int notified(long couponId) {
        return pipeline.coupon(couponId).notifiedCount();
    }

    private static Map<?, ?> message(FakePushServer.Received request) {
        return (Map<?, ?>) JSON.readValue(request.body(), Map.class).get("message");
    }

    private void republish(List<IssueResult> results) {
        try (var producer = new KafkaProducer<String, String>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers),
                new StringSerializer(),
                new StringSerializer())) {
            results.forEach(r -> producer.send(
                    new ProducerRecord<>(Topics.ISSUE_RESULT, Topics.key(r.couponId()), JSON.writeValueAsString(r))));
            producer.flush();
        }
    }

    @Test
    void shouldSendOneExactFcmRequestPerResultAndDeviceAndNoneWhenResultsAreReplayed() {
        long coupon = pipeline.newCoupon(1);
        device("m-1", "tok-phone-1", "ANDROID");
        device("m-1", "tok-tablet-1", "IOS");
        device("m-2", "tok-phone-2", "WEB");

        pipeline.publish(Pipeline.requests(coupon, 1, 2));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> FCM.received().stream()
                                .filter(r ->
                                        r.isFor("tok-phone-1") || r.isFor("tok-tablet-1") || r.isFor("tok-phone-2"))
                                .count()
                        == 3);
        long walletId = pipeline.wallets(coupon).getFirst().id();
        for (String token : List.of("tok-phone-1", "tok-tablet-1")) {
            FakePushServer.Received request = FCM.receivedFor(token).getFirst();
            assertThat(request.method()).isEqualTo("POST");
            assertThat(request.path()).isEqualTo(SEND_PATH);
            assertThat(request.headers())
                    .containsEntry("authorization", "Bearer test-access-token")
                    .containsEntry("content-type", "application/json; charset=UTF-8");
            Map<?, ?> message = message(request);
            assertThat(message.get("token")).isEqualTo(token);
            assertThat(message.get("data"))
                    .isEqualTo(Map.of(
                            "eventId",
                            coupon + ":m-1",
                            "couponId",
                            Long.toString(coupon),
                            "outcome",
                            "ISSUED",
                            "walletCouponId",
                            Long.toString(walletId)));
            assertThat(new java.util.TreeSet<Object>(((Map<?, ?>) message.get("notification")).keySet()).toString())
                    .isEqualTo("[body, title]");
        }
        assertThat(message(FCM.receivedFor("tok-phone-2").getFirst()).get("data"))
                .isEqualTo(Map.of(
                        "eventId",
                        coupon + ":m-2",
                        "couponId",
                        Long.toString(coupon),
                        "outcome",
                        "FAILED",
                        "failureReason",
                        "SOLD_OUT"));
        await().atMost(Duration.ofSeconds(10)).until(() -> notified(coupon) == 3);

        // the same events again (a replay), then a sentinel behind them on the same partition
        // the results topic, read until both are seen (a short poll each time: under load the first may see none)
        await().atMost(Duration.ofSeconds(30))
                .until(() -> pipeline.results(coupon).size() >= 2);
        List<IssueResult> results = pipeline.results(coupon);
        assertThat(results).hasSize(2);
        device("m-3", "tok-sentinel", "ANDROID");
        republish(results);
        republish(List.of(
                new IssueResult(coupon + ":m-3", coupon, "m-3", 3, IssueResult.Outcome.FAILED, null, "SOLD_OUT", 1L)));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> FCM.receivedFor("tok-sentinel").size() == 1);
        assertThat(FCM.receivedFor("tok-phone-1")).hasSize(1);
        assertThat(FCM.receivedFor("tok-tablet-1")).hasSize(1);
        assertThat(FCM.receivedFor("tok-phone-2")).hasSize(1);
        await().atMost(Duration.ofSeconds(10)).until(() -> notified(coupon) == 4);
    }

    @Test
    void shouldRetryAfterTheProvidersRetryAfterWhenItAnswers429() {
        long coupon = pipeline.newCoupon(5);
        device("busy-1", "tok-busy", "ANDROID");
        FCM.script(
                "tok-busy",
                new FakePushServer.Answer(
                        429,
                        Map.of("Retry-After", "1"),
                        "{\"error\":{\"code\":429,\"status\":\"RESOURCE_EXHAUSTED\"}}"));

        pipeline.publish(List.of(request(coupon, "busy-1", 1)));

        await().atMost(Duration.ofSeconds(30)).until(() -> notified(coupon) == 1);
        List<FakePushServer.Received> requests = FCM.receivedFor("tok-busy");
        assertThat(requests).hasSize(2);
        assertThat(requests.get(1).body()).isEqualTo(requests.get(0).body());
        assertThat(Duration.ofNanos(requests.get(1).atNanos() - requests.get(0).atNanos()))
                .isGreaterThanOrEqualTo(Duration.ofMillis(950));
        assertThat(state(coupon + ":busy-1", "tok-busy")).isEqualTo("SENT");
    }

    @Test
    void shouldDropTokensTheProviderReportsUnregisteredAndSendNothingMore() {
        long coupon = pipeline.newCoupon(5);
        device("gone-1", "tok-gone", "ANDROID");
        device("gone-1", "tok-alive", "IOS");
        device("gone-2", "tok-invalid", "WEB");
        FCM.script(
                "tok-gone",
                new FakePushServer.Answer(
                        404,
                        Map.of(),
                        "{\"error\":{\"code\":404,\"message\":\"Requested entity was not found.\",\"status\":\"NOT_FOUND\","
                                + "\"details\":[{\"@type\":\"type.googleapis.com/google.firebase.fcm.v1.FcmError\","
                                + "\"errorCode\":\"UNREGISTERED\"}]}}"));
        FCM.script(
                "tok-invalid",
                new FakePushServer.Answer(
                        400,
                        Map.of(),
                        "{\"error\":{\"code\":400,\"message\":\"The registration token is not a valid FCM registration"
                                + " token\",\"status\":\"INVALID_ARGUMENT\"}}"));

        pipeline.publish(List.of(request(coupon, "gone-1", 1), request(coupon, "gone-2", 2)));

        await().atMost(Duration.ofSeconds(30))
                .until(() -> "DROPPED".equals(state(coupon + ":gone-2", "tok-invalid"))
                        && "DROPPED".equals(state(coupon + ":gone-1", "tok-gone"))
                        && "SENT".equals(state(coupon + ":gone-1", "tok-alive")));
        assertThat(FCM.receivedFor("tok-gone")).hasSize(1);
        assertThat(FCM.receivedFor("tok-invalid")).hasSize(1);
        assertThat(jdbc.sql("SELECT device_token FROM member_device WHERE member_id IN ('gone-1', 'gone-2')"
                                + " AND device_token IN ('tok-gone', 'tok-alive', 'tok-invalid')")
                        .query(String.class)
                        .list())
                .containsExactly("tok-alive");
        assertThat(notified(coupon)).isEqualTo(1);
    }

    @Test
    void shouldPushOneResultToTheMembersNewestDevicesOnlyUpToTheCap() {
        long coupon = pipeline.newCoupon(5);
        // five devices, the newest first; the cap is 3 here
        for (int i = 1; i <= 5; i++) {
            jdbc.sql("INSERT INTO member_device (device_token, member_id, platform, updated_at)"
                            + " VALUES (?, 'many-1', 'ANDROID', NOW(3) - INTERVAL ? MINUTE)")
                    .params("tok-many-" + i, i)
                    .update();
        }

        pipeline.publish(List.of(request(coupon, "many-1", 1)));

        await().atMost(Duration.ofSeconds(30)).until(() -> notified(coupon) == 3);
        assertThat(FCM.received().stream()
                        .filter(r -> r.body().contains("tok-many-"))
                        .map(r -> (String) message(r).get("token"))
                        .sorted()
                        .toList())
                .containsExactly("tok-many-1", "tok-many-2", "tok-many-3");
    }

    /**
     * A member whose devices keep failing holds up no one: before, the record was retried in place until it worked,
     * and results are keyed by coupon, so the coupon's next member waited for ever (this test timed out). Now the
     * record goes to the retry topic, the partition carries on, and after its redeliveries the record is dead-lettered
     * and counted.
     */
    @Test
    void shouldPushTheCouponsOtherMembersWhileOneMembersDevicesKeepFailingThenDeadLetterIt() {
        long coupon = pipeline.newCoupon(5);
        device("failing-1", "tok-failing-a", "ANDROID");
        device("failing-1", "tok-failing-b", "IOS");
        device("behind-1", "tok-behind", "ANDROID");
        var down = new FakePushServer.Answer(503, Map.of(), "{\"error\":{\"code\":503,\"status\":\"UNAVAILABLE\"}}");
        for (String token : List.of("tok-failing-a", "tok-failing-b")) {
            FCM.script(token, java.util.Collections.nCopies(200, down).toArray(FakePushServer.Answer[]::new));
        }
        double deadLetteredBefore = deadLettered();

        // the failing member first, then another member of the same coupon: the same partition, in that order
        pipeline.publish(List.of(request(coupon, "failing-1", 1), request(coupon, "behind-1", 2)));

        await().atMost(Duration.ofSeconds(60))
                .until(() -> FCM.receivedFor("tok-behind").size() == 1);
        await().atMost(Duration.ofSeconds(60)).until(() -> "SENT".equals(state(coupon + ":behind-1", "tok-behind")));

        await().atMost(Duration.ofSeconds(90)).until(() -> deadLettered() == deadLetteredBefore + 1);
        try (var dlt = new com.flashcoupon.worker.support.TopicReader(
                brokers, Topics.ISSUE_RESULT + NotifyConfig.DEAD_LETTER_SUFFIX)) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> dlt.poll().stream()
                            .anyMatch(r -> new String(r.value(), java.nio.charset.StandardCharsets.UTF_8)
                                    .contains("\"" + coupon + ":failing-1\"")));
        }
        // the first delivery and two redeliveries, each pushing to both devices until the provider's answers ran out
        assertThat(FCM.receivedFor("tok-failing-a")).hasSizeGreaterThanOrEqualTo(3);
        assertThat(state(coupon + ":failing-1", "tok-failing-a")).isNull();
        assertThat(notified(coupon)).isEqualTo(1);
    }

    @Test
    void shouldDeadLetterAResultRecordItCannotReadAsItCame() {
        double deadLetteredBefore = deadLettered();
        try (var producer = new KafkaProducer<String, String>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, brokers),
                new StringSerializer(),
                new StringSerializer())) {
            producer.send(new ProducerRecord<>(Topics.ISSUE_RESULT, "424242", "not a result {"));
            producer.flush();
        }

        await().atMost(Duration.ofSeconds(60)).until(() -> deadLettered() == deadLetteredBefore + 1);
        try (var dlt = new com.flashcoupon.worker.support.TopicReader(
                brokers, Topics.ISSUE_RESULT + NotifyConfig.DEAD_LETTER_SUFFIX)) {
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> dlt.poll().stream()
                            .anyMatch(r -> "424242".equals(r.key())
                                    && "not a result {"
                                            .equals(new String(r.value(), java.nio.charset.StandardCharsets.UTF_8))));
        }
    }

    private double deadLettered() {
        var counter = meters.find("coupon.notify.dead.lettered").counter();
        return counter == null ? 0 : counter.count();
    }

    private static IssueRequested request(long couponId, String memberId, long sequence) {
        return new IssueRequested(couponId, memberId, sequence, System.currentTimeMillis());
    }

    private String state(String eventId, String token) {
        return jdbc.sql("SELECT state FROM notification_delivery WHERE event_id = ? AND device_token = ?")
                .params(eventId, token)
                .query(String.class)
                .optional()
                .orElse(null);
    }
}
