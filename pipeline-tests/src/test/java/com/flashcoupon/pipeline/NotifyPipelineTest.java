package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.MediaType;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;

/**
 * Telling the member, end to end: devices registered through the api, a crowd issued, the worker's notifier pushing to
 * a real local HTTP server playing the webhook, a member watching the live status stream; then a worker restart that
 * replays every result without a second push.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NotifyPipelineTest {

    private static final ParameterizedTypeReference<ServerSentEvent<Map<String, Object>>> EVENT =
            new ParameterizedTypeReference<>() {};

    private static FakePushProvider provider;
    private static Stack stack;
    private static WebClient http;

    @BeforeAll
    static void start() {
        provider = new FakePushProvider();
        stack = new Stack(
                Map.of("coupon.drain.max-batch", 50, "coupon.drain.tick", "100ms"),
                Map.of(
                        "coupon.worker.max-batch",
                        100,
                        "coupon.notify.provider",
                        "webhook",
                        "coupon.notify.webhook.url",
                        provider.url()));
        http = WebClient.create(stack.apiUrl());
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
        if (provider != null) {
            provider.close();
        }
    }

    @Test
    @Order(1)
    void shouldPushOncePerDeviceAndStreamFallingPositionsThenIssuedWhenACrowdIsIssued() {
        // 1 a second until the watcher has its place, then 30: the watcher sees its position fall from about 300,
        // however long the crowd took
        long couponId = stack.createCoupon("Notify", 301, 1);
        List<String> crowd = Crowd.members("push", 300);
        Map<String, List<String>> devices = registerDevices(crowd);

        List<Crowd.Answer> answers = Crowd.ask(stack.apiUrl(), couponId, crowd, 0, 64);
        assertThat(Crowd.countByStatus(answers)).containsEntry(202, 300L);
        http.post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", bearer("watcher"))
                .retrieve()
                .toBodilessEntity()
                .block(Duration.ofSeconds(10));
        List<Map<String, Object>> watched = new CopyOnWriteArrayList<>();
        http.get()
                .uri("/api/v1/coupons/{id}/issue-requests/me/events", couponId)
                .header("Authorization", bearer("watcher"))
                .accept(MediaType.TEXT_EVENT_STREAM)
                .retrieve()
                .bodyToFlux(EVENT)
                .filter(event -> "status".equals(event.event()))
                .subscribe(event -> watched.add(event.data()));
        await().atMost(Duration.ofSeconds(30)).until(() -> !watched.isEmpty());
        http.patch()
                .uri("/admin/v1/coupons/{id}", couponId)
                .header("Authorization", "Bearer " + Stack.token("operator", List.of("coupon-admin")))
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 30))
                .retrieve()
                .toBodilessEntity()
                .block(Duration.ofSeconds(30));

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(200))
                .until(() ->
                        !watched.isEmpty() && "ISSUED".equals(watched.getLast().get("status")));
        List<Long> positions = watched.stream()
                .filter(status -> "WAITING".equals(status.get("status")))
                .map(status -> ((Number) status.get("position")).longValue())
                .toList();
        assertThat(positions).hasSizeGreaterThanOrEqualTo(2).isSortedAccordingTo((a, b) -> Long.compare(b, a));
        assertThat(positions.getFirst()).isGreaterThan(positions.getLast());
        assertThat(watched.getLast().get("walletCouponId")).isNotNull();

        int expectedPushes = devices.values().stream().mapToInt(List::size).sum();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> pushesFor(couponId).size() >= expectedPushes);
        assertExactlyOnePushPerDevice(couponId, devices);
        assertThat(notified(couponId)).isEqualTo(expectedPushes);
    }

    @Test
    @Order(2)
    void shouldPushNoSecondTimeWhenTheWorkerRestartsAndReplaysEveryResult() throws Exception {
        long couponId = stack.createCoupon("Notify", 400, 100);
        List<String> crowd = Crowd.members("restart", 400);
        Map<String, List<String>> devices = registerDevices(crowd);
        Crowd.ask(stack.apiUrl(), couponId, crowd, 0, 64);
        await().atMost(Duration.ofSeconds(60)).until(() -> pushesFor(couponId).size() >= 100);

        stack.stopWorker();
        rewind("coupon-issuer", Topics.ISSUE_REQUESTED);
        rewind("coupon-notifier", Topics.ISSUE_RESULT);
        stack.startWorker();

        int expectedPushes = devices.values().stream().mapToInt(List::size).sum();
        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> pushesFor(couponId).size() >= expectedPushes
                        && lag("coupon-issuer", Topics.ISSUE_REQUESTED) == 0
                        && lag("coupon-notifier", Topics.ISSUE_RESULT) == 0);
        assertThat(resultCount(couponId)).as("every result was emitted again").isGreaterThan(400);
        assertExactlyOnePushPerDevice(couponId, devices);
        assertThat(notified(couponId)).isEqualTo(expectedPushes);
    }

    /** Every third member registers two devices (a phone and a tablet), the others one. */
    private static Map<String, List<String>> registerDevices(List<String> members) {
        Map<String, List<String>> devices = new HashMap<>();
        for (int i = 0; i < members.size(); i++) {
            String member = members.get(i);
            List<String> tokens = new ArrayList<>(List.of("phone-" + member));
            if (i % 3 == 0) {
                tokens.add("tablet-" + member);
            }
            devices.put(member, tokens);
        }
        Flux.fromIterable(devices.entrySet())
                .flatMap(
                        entry -> Flux.fromIterable(entry.getValue())
                                .flatMap(token -> http.put()
                                        .uri("/api/v1/me/devices/{token}", token)
                                        .header("Authorization", bearer(entry.getKey()))
                                        .contentType(MediaType.APPLICATION_JSON)
                                        .bodyValue(Map.of("platform", token.startsWith("phone") ? "ANDROID" : "IOS"))
                                        .retrieve()
                                        .toBodilessEntity()),
                        32)
                .blockLast(Duration.ofSeconds(60));
        return devices;
    }

    private static void assertExactlyOnePushPerDevice(long couponId, Map<String, List<String>> devices) {
        List<FakePushProvider.Received> pushes = pushesFor(couponId);
        Map<String, Long> perDevice = pushes.stream()
                .collect(Collectors.groupingBy(p -> p.eventId() + "/" + p.deviceToken(), Collectors.counting()));
        assertThat(perDevice.values()).allMatch(count -> count == 1L);
        Set<String> expected = new HashSet<>();
        devices.forEach(
                (member, tokens) -> tokens.forEach(token -> expected.add(couponId + ":" + member + "/" + token)));
        assertThat(perDevice.keySet()).isEqualTo(expected);
        assertThat(pushes).allMatch(p -> "ISSUED".equals(p.outcome()));
    }

    private static List<FakePushProvider.Received> pushesFor(long couponId) {
        return provider.received().stream()
                .filter(p -> p.eventId().startsWith(couponId + ":"))
                .toList();
    }

    private static int notified(long couponId) {
        return stack.jdbc
                .sql("SELECT notified_count FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Integer.class)
                .single();
    }

    private static String bearer(String member) {
        return "Bearer " + Stack.token(member, List.of());
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.getBrokersAsString()));
    }

    private static void rewind(String group, String topic) throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> start = partitions(admin, topic).stream()
                    .collect(Collectors.toMap(Function.identity(), p -> new OffsetAndMetadata(0)));
            admin.alterConsumerGroupOffsets(group, start).all().get();
        }
    }

    private static long lag(String group, String topic) throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            long lag = 0;
            for (TopicPartition partition : partitions(admin, topic)) {
                long end = admin.listOffsets(Map.of(partition, OffsetSpec.latest()))
                        .partitionResult(partition)
                        .get()
                        .offset();
                OffsetAndMetadata done = committed.get(partition);
                lag += end - (done == null ? 0 : done.offset());
            }
            return lag;
        }
    }

    private static long resultCount(long couponId) throws Exception {
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, String>(
                Map.of(
                        org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        stack.kafka.getBrokersAsString()),
                new org.apache.kafka.common.serialization.StringDeserializer(),
                new org.apache.kafka.common.serialization.StringDeserializer())) {
            List<TopicPartition> partitions;
            try (Admin admin = admin()) {
                partitions = List.copyOf(partitions(admin, Topics.ISSUE_RESULT));
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            long count = 0;
            while (partitions.stream().anyMatch(p -> consumer.position(p) < ends.get(p))) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    if (Topics.key(couponId).equals(record.key())) {
                        count++;
                    }
                }
            }
            return count;
        }
    }

    private static Set<TopicPartition> partitions(Admin admin, String topic) throws Exception {
        Set<TopicPartition> partitions = new HashSet<>();
        admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get()
                .get(topic)
                .partitions()
                .forEach(info -> partitions.add(new TopicPartition(topic, info.partition())));
        return partitions;
    }
}
