package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.Topics;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.util.ReflectionTestUtils;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Two api instances and two workers against one event, each member's request landing on either instance as a load
 * balancer would send it: exactly one drainer per coupon at a time (no request published twice, though both instances
 * try every tick), one outcome per accepted member, the invariants; a member answered alike by either instance (their
 * place, the sold-out refusal, the live stream). Then the instance that drains an event stops in the middle, and the
 * other takes the event over once the lease expires.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ScaleOutTest {

    private static final int DRAIN_BATCH = 50;

    private static final ExecutorService CROWDS = Executors.newCachedThreadPool();

    private static Stack stack;
    private static ConfigurableApplicationContext secondApi;
    private static ConfigurableApplicationContext secondWorker;

    @BeforeAll
    static void start() {
        stack = new Stack(
                Map.of("coupon.drain.max-batch", Integer.toString(DRAIN_BATCH)),
                Map.of("coupon.worker.max-writes-per-second", "2000"));
        secondApi = stack.startAnotherApi();
        secondWorker = stack.startAnotherWorker();
    }

    @AfterAll
    static void stop() {
        if (secondApi != null) {
            secondApi.close();
        }
        if (secondWorker != null) {
            secondWorker.close();
        }
        if (stack != null) {
            stack.close();
        }
        CROWDS.shutdownNow();
    }

    @Test
    void shouldPublishEachAcceptedRequestOnceAndIssueItOnceWithTwoApisAndTwoWorkers() {
        long couponId = stack.createCoupon("Scale-out", 600, 300);
        Set<String> accepted = crowdOnBothInstances(couponId, "scale", 1_500);
        assertThat(accepted).hasSize(600);

        awaitSettled(couponId, accepted);
        Invariants.check(stack.jdbc, couponId, accepted, DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(600);
        assertThat(publications(couponId))
                .as("every accepted request published exactly once: one drainer per coupon at a time")
                .hasSize(600)
                .allSatisfy((member, times) -> assertThat(times).as(member).isEqualTo(1));
    }

    @Test
    @Order(Integer.MAX_VALUE) // it stops one of the two api instances
    void shouldHandTheEventToTheOtherInstanceWhenItsDrainerStops() {
        // 1 a second while the crowd asks, however long it takes; then 20 a second: twenty seconds of draining left
        // when the instance stops, a moment later (the other one's HTTP server goes with it: the two share this JVM's
        // Reactor Netty resources, so the rate is changed before)
        long couponId = stack.createCoupon("Takeover", 400, 1);
        Set<String> accepted = crowdOnBothInstances(couponId, "takeover", 400);
        assertThat(accepted).hasSize(400);
        stack.http()
                .patch()
                .uri("/admin/v1/coupons/{id}", couponId)
                .header("Authorization", "Bearer " + Stack.token("operator", List.of("coupon-admin")))
                .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 20))
                .exchange()
                .expectStatus()
                .isOk();

        await("the first request of coupon " + couponId + " published at 20/s")
                .atMost(Duration.ofMinutes(2))
                .until(() -> cursor(couponId) > 0);
        String owner = stack.redis.opsForValue().get(CouponKeys.lease(couponId));
        ConfigurableApplicationContext draining = ownerOf(stack.api).equals(owner) ? stack.api : secondApi;
        long stopped = System.nanoTime();
        draining.close();
        // read once it is stopped: read before, the stopping instance itself could move the cursor past it meanwhile
        long cursorAtStop = cursor(couponId);
        assertThat(cursorAtStop)
                .as("published when the draining instance stopped")
                .isLessThan(400);

        // once the lease (5 s) expires; the bound is generous, the time it took is printed
        await("the other instance to take the lease over and publish past " + cursorAtStop)
                .atMost(Duration.ofMinutes(3))
                .until(() -> cursor(couponId) > cursorAtStop);
        System.out.printf(
                "SCALE-OUT the other instance moved the cursor %d ms after the draining one stopped (lease 5 s)%n",
                Duration.ofNanos(System.nanoTime() - stopped).toMillis());
        awaitSettled(couponId, accepted);
        Invariants.check(stack.jdbc, couponId, accepted, DRAIN_BATCH);
        assertThat(stack.walletCount(couponId)).isEqualTo(400);
    }

    @Test
    void shouldAnswerAMemberAlikeOnEitherInstance() {
        long couponId = stack.createCoupon("Either instance", 40, 200);
        Set<String> accepted = crowdOnBothInstances(couponId, "either", 160); // sells out on both instances
        assertThat(accepted).hasSize(40);
        String refused = Crowd.members("either", 160).stream()
                .filter(member -> !accepted.contains(member))
                .findFirst()
                .orElseThrow();

        // a member admitted by one instance and a live stream on each: both streams end with the member's wallet
        String watched = accepted.iterator().next();
        List<Map<String, Object>> first = Stack.watch(stack.apiUrl(), couponId, watched);
        List<Map<String, Object>> second = Stack.watch(Stack.urlOf(secondApi), couponId, watched);

        // both instances know the coupon sold out (cheap refusals); the admitted still get their place on either
        for (String url : List.of(stack.apiUrl(), Stack.urlOf(secondApi))) {
            for (String member : accepted) {
                assertThat(admit(url, couponId, member))
                        .as(member + " at " + url)
                        .isEqualTo(200);
            }
            assertThat(admit(url, couponId, refused)).as(refused + " at " + url).isEqualTo(409);
        }
        await("both live streams to end with " + watched + "'s wallet")
                .atMost(Duration.ofMinutes(3))
                .until(() -> isIssued(first) && isIssued(second));
        assertThat(first.getLast().get("walletCouponId"))
                .isEqualTo(second.getLast().get("walletCouponId"));
    }

    private static int admit(String url, long couponId, String member) {
        return WebClient.create(url)
                .post()
                .uri("/api/v1/coupons/{id}/issue-requests", couponId)
                .header("Authorization", "Bearer " + Stack.token(member, List.of()))
                .exchangeToMono(response ->
                        response.releaseBody().thenReturn(response.statusCode().value()))
                .block(Duration.ofSeconds(30));
    }

    private static boolean isIssued(List<Map<String, Object>> statuses) {
        return !statuses.isEmpty() && "ISSUED".equals(statuses.getLast().get("status"));
    }

    /** Half the members ask the first instance, half the second, at the same time; returns the members told 202. */
    private static Set<String> crowdOnBothInstances(long couponId, String prefix, int size) {
        List<String> members = Crowd.members(prefix, size);
        // threads of their own: the common pool has a single thread on two cores, which would ask one after the other
        var first = CompletableFuture.supplyAsync(
                () -> Crowd.ask(stack.apiUrl(), couponId, members.subList(0, size / 2), 0, 32), CROWDS);
        var second = CompletableFuture.supplyAsync(
                () -> Crowd.ask(Stack.urlOf(secondApi), couponId, members.subList(size / 2, size), 0, 32), CROWDS);
        List<Crowd.Answer> answers =
                Stream.of(first.join(), second.join()).flatMap(List::stream).toList();
        assertThat(Crowd.countByStatus(answers).keySet()).isSubsetOf(202, 409);
        return answers.stream()
                .filter(answer -> answer.status() == 202)
                .map(Crowd.Answer::memberId)
                .collect(Collectors.toSet());
    }

    private static void awaitSettled(long couponId, Set<String> accepted) {
        await(accepted.size() + " accepted requests of coupon " + couponId + " issued or failed")
                .atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId) >= accepted.size());
    }

    private static long cursor(long couponId) {
        String value = stack.redis.opsForValue().get(CouponKeys.cursor(couponId));
        return value == null ? 0 : Long.parseLong(value);
    }

    private static String ownerOf(ConfigurableApplicationContext api) {
        // the lease, and its owner id, live in the drainer's DrainLease
        return (String)
                ReflectionTestUtils.getField(ReflectionTestUtils.getField(api.getBean("drainer"), "lease"), "owner");
    }

    /** How many times each member's request of this coupon was published to Kafka, read from the topic itself. */
    private static Map<String, Integer> publications(long couponId) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, stack.kafka.getBrokersAsString(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Map<String, Integer> times = new HashMap<>();
        try (var consumer = new KafkaConsumer<String, String>(config)) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ISSUE_REQUESTED).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition))) {
                for (var record : consumer.poll(Duration.ofMillis(500))) {
                    if (record.key().equals(Topics.key(couponId))) {
                        String member = record.value().replaceAll(".*\"memberId\"\\s*:\\s*\"([^\"]+)\".*", "$1");
                        times.merge(member, 1, Integer::sum);
                    }
                }
            }
        }
        return times;
    }
}
