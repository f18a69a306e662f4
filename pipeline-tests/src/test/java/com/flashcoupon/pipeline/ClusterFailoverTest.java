package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.CouponKeys;
import java.nio.file.Path;
import java.sql.Timestamp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Failover on the stack as it runs on several machines ({@link ClusterStack}: a Redis Cluster with a replica per
 * master, three Kafka brokers, two apis, two workers, each a process of its own). In each scenario a crowd larger than
 * the stock asks both api instances, as a load balancer would spread it, while one part dies: the Redis master of the
 * coupon's slot (its replica is promoted), one api instance, one worker, one broker. Afterwards every member told
 * "accepted" has a wallet or a failure row and a status that says so, none twice, never beyond the stock, with the five
 * invariants of docs/architecture.md; each request was published, none beyond one batch twice (read from the topic). Before
 * the faults, two workers catching up hold the write limit together. One stack for all scenarios, one coupon (or three)
 * each; each scenario adds a row to {@code target/cluster-failover.md}.
 *
 * <p>Run with {@code -Dfailover.switch-off=lease|write-rate|replica-wait} it must fail (see {@link ClusterStack});
 * the Redis master kill and the worker kill are on events of three stock shards, the others on one; with
 * {@code -Dfailover.shards=K}, every scenario on K.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterFailoverTest {

    private static final Path TABLE = Path.of("target", "cluster-failover.md");
    private static final int STOCK = 600;
    private static final int CROWD = 1_500;
    /** Slow enough that issuance takes seconds, so the fault lands in its middle. */
    private static final int RATE = 150;
    /** How far the replica of the event's master is behind when the master dies (frozen that long). */
    private static final Duration REPLICA_BEHIND = Duration.ofMillis(1_500);

    /**
     * Threads of their own for the crowds: on a machine of two cores the common pool has one thread, and the two halves
     * of a crowd, each blocking until it is answered, would ask one after the other instead of at once.
     */
    private static final ExecutorService CROWDS = Executors.newCachedThreadPool();

    private static ClusterStack stack;

    @BeforeAll
    static void start() throws Exception {
        long started = System.nanoTime();
        stack = new ClusterStack();
        System.out.printf(
                Locale.ROOT,
                "FAILOVER stack ready in %.1f s (switched off: %s)%n",
                (System.nanoTime() - started) / 1e9,
                ClusterStack.SWITCH_OFF.isEmpty() ? "nothing" : ClusterStack.SWITCH_OFF);
    }

    @AfterAll
    static void stop() throws Exception {
        CROWDS.shutdownNow();
        if (stack != null) {
            stack.close();
        }
    }

    /**
     * Three events, one on each partition of the request topic, so that both workers have records; each admitted
     * while it drains at 1 a second, then raised to 1,000 a second: both workers catch up at once, and together they
     * write no faster than the one limit allows (Bucket4j, greedy refill: at most a second's worth more than the rate
     * in any window).
     */
    @Test
    @Order(1)
    void shouldHoldTheOneWriteLimitWhenTwoWorkersCatchUpTogether() throws Exception {
        assertThat(stack.requestTopicReplication()).isEqualTo("replicas 3, min.insync.replicas 2");
        int perCoupon = 400;
        List<Long> coupons = onePerPartition("Catch-up", perCoupon);
        List<CompletableFuture<List<Crowd.Answer>>> crowds = new ArrayList<>();
        for (long couponId : coupons) {
            List<String> members = Crowd.members("catchup" + couponId, perCoupon);
            crowds.add(CompletableFuture.supplyAsync(
                    () -> crowdOnBothApis(couponId, members, new AtomicInteger(), 8), CROWDS));
        }
        Map<Long, Set<String>> accepted = new HashMap<>();
        for (int i = 0; i < coupons.size(); i++) {
            String url = stack.url(stack.apis.get(0));
            accepted.put(
                    coupons.get(i),
                    FaultStack.accepted(url, coupons.get(i), crowds.get(i).get()));
        }
        Timestamp raisedAt =
                stack.jdbc.sql("SELECT NOW(3)").query(Timestamp.class).single();
        for (long couponId : coupons) {
            setRate(couponId, 1_000);
        }
        long raised = System.nanoTime();

        for (long couponId : coupons) {
            FaultReport.settleAndCheck(
                    TABLE,
                    stack.jdbc,
                    "two workers catch up (3 events, 3 partitions)",
                    couponId,
                    accepted.get(couponId),
                    raised,
                    "rate raised from 1/s to 1,000/s after admission",
                    () -> stack.diagnosis(couponId));
        }
        List<Timestamp> writes = stack.jdbc
                .sql("SELECT issued_at FROM coupon_wallet WHERE coupon_id IN (?, ?, ?) AND issued_at >= ?"
                        + " ORDER BY issued_at")
                .params(coupons.get(0), coupons.get(1), coupons.get(2), raisedAt)
                .query(Timestamp.class)
                .list();
        Duration window = Duration.ofSeconds(2);
        int peak = peakIn(writes, window);
        long allowed = Math.round(ClusterStack.WRITES_PER_SECOND * (window.toSeconds() + 1) * 1.1);
        System.out.printf(
                Locale.ROOT,
                "FAILOVER catch-up: %d wallets after the rate change, at most %d in any %d s (limit %d/s: %d allowed)%n",
                writes.size(),
                peak,
                window.toSeconds(),
                ClusterStack.WRITES_PER_SECOND,
                allowed);
        assertThat(writes.size())
                .as("the catch-up is long enough to measure the rate")
                .isGreaterThan((int) allowed);
        assertThat(peak)
                .as(
                        "wallets written in any %d s by both workers together (one shared limit of %d/s)",
                        window.toSeconds(), ClusterStack.WRITES_PER_SECOND)
                .isLessThanOrEqualTo((int) allowed);
        for (long couponId : coupons) {
            assertPublishedOnceUpToABatch(couponId, accepted.get(couponId));
        }
    }

    @Test
    @Order(2)
    void shouldLoseNoAdmissionWhenTheRedisMasterOfTheEventsSlotIsKilled() throws Exception {
        long couponId = createCoupon("Redis master kill", STOCK, RATE, 3);
        var answered = new AtomicInteger();
        List<String> members = Crowd.members("master", CROWD);
        var crowd = CompletableFuture.supplyAsync(() -> crowdOnBothApis(couponId, members, answered, 16), CROWDS);
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> answered.get() >= CROWD / 5);

        // the replica a second and a half behind when its master dies: only the replica wait keeps the admissions of
        // that time from being answered 202 and then lost with the master
        var failover = stack.redis.killMasterOf(CouponKeys.queue(couponId), REPLICA_BEHIND, Duration.ofSeconds(30));
        long promotedAt = System.nanoTime();
        stack.redis.restart(failover.killedPort(), Duration.ofSeconds(60));

        List<Crowd.Answer> answers = crowd.get();
        Set<String> accepted = FaultStack.accepted(stack.url(stack.apis.get(0)), couponId, answers);
        try {
            FaultReport.settleAndCheck(
                    TABLE,
                    stack.jdbc,
                    "Redis master of the event's slot kill -9, replica promoted",
                    couponId,
                    accepted,
                    promotedAt,
                    String.format(
                            Locale.ROOT,
                            "replica frozen %.1f s before the kill, promoted %.1f s after it; answers %s",
                            REPLICA_BEHIND.toMillis() / 1e3,
                            failover.took().toMillis() / 1e3,
                            Crowd.countByStatus(answers)),
                    () -> stack.diagnosis(couponId));
        } finally {
            reportPublications(couponId);
        }
        FaultReport.assertEveryoneTold(stack.url(stack.apis.get(0)), couponId, accepted);
        // the drain cursor's last moves were lost with the master as well: those batches go out again (at least once,
        // the worker's unique key makes the repeats no-ops), possibly more than one batch, so only counted above
        assertThat(stack.publications(couponId).keySet())
                .as("every accepted request published")
                .containsAll(accepted);
        assertAnsweredAsTheContractSays(answers);
    }

    @Test
    @Order(3)
    void shouldLoseNothingWhenTheApiThatDrainsIsKilled() throws Exception {
        long couponId = createCoupon("Api kill", STOCK, RATE);
        var answered = new AtomicInteger();
        List<String> members = Crowd.members("apikill", CROWD);
        var crowd = CompletableFuture.supplyAsync(() -> crowdOnBothApis(couponId, members, answered, 16), CROWDS);
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> answered.get() >= CROWD / 3 && stack.walletCount(couponId) > 0);

        // the instance that holds the event's drain lease, so that a batch is in flight when it dies
        ChildJvm drainer = drainerOf(couponId);
        ChildJvm other = stack.apis.get(0) == drainer ? stack.apis.get(1) : stack.apis.get(0);
        drainer.kill();
        long killedAt = System.nanoTime();
        long walletsAtKill = stack.walletCount(couponId);

        try {
            List<Crowd.Answer> answers = crowd.get();
            Set<String> accepted = FaultStack.accepted(stack.url(other), couponId, answers);
            try {
                FaultReport.settleAndCheck(
                        TABLE,
                        stack.jdbc,
                        "the draining api kill -9 mid-crowd, the other takes over",
                        couponId,
                        accepted,
                        killedAt,
                        "killed at " + walletsAtKill + " wallets; answers " + Crowd.countByStatus(answers),
                        () -> stack.diagnosis(couponId));
            } finally {
                reportPublications(couponId);
            }
            FaultReport.assertEveryoneTold(stack.url(other), couponId, accepted);
            assertPublishedOnceUpToABatch(couponId, accepted);
            assertAnsweredAsTheContractSays(answers);
        } finally {
            // the next scenarios need both instances again
            drainer.start();
            stack.awaitReady(drainer, Duration.ofMinutes(5));
        }
    }

    @Test
    @Order(4)
    void shouldLoseNothingWhenTheWorkerOfTheEventsPartitionIsKilled() throws Exception {
        long couponId = createCoupon("Worker kill", STOCK, RATE, 3);
        List<String> members = Crowd.members("workerkill", CROWD);
        var crowd = CompletableFuture.supplyAsync(
                () -> crowdOnBothApis(couponId, members, new AtomicInteger(), 16), CROWDS);
        awaitWallets(couponId, 60);

        ChildJvm worker = stack.workerOf(ClusterStack.partitionOf(couponId));
        worker.kill();
        long killedAt = System.nanoTime();
        long walletsAtKill = stack.walletCount(couponId);
        double takeover;
        try {
            // the other worker takes the partition once the dead one's static membership times out (10 s)
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100))
                    .until(() -> stack.walletCount(couponId) > walletsAtKill + ClusterStack.DRAIN_BATCH);
            takeover = (System.nanoTime() - killedAt) / 1e9;
        } finally {
            worker.start();
        }

        List<Crowd.Answer> answers = crowd.get();
        Set<String> accepted = FaultStack.accepted(stack.url(stack.apis.get(0)), couponId, answers);
        FaultReport.settleAndCheck(
                TABLE,
                stack.jdbc,
                "the worker of the event's partition kill -9, the other takes over",
                couponId,
                accepted,
                killedAt,
                String.format(
                        Locale.ROOT,
                        "killed at %d wallets; the other worker wrote again %.1f s after the kill",
                        walletsAtKill,
                        takeover),
                () -> stack.diagnosis(couponId));
        FaultReport.assertEveryoneTold(stack.url(stack.apis.get(0)), couponId, accepted);
        assertPublishedOnceUpToABatch(couponId, accepted);
        assertAnsweredAsTheContractSays(answers);
        stack.awaitReady(worker, Duration.ofMinutes(5));
    }

    @Test
    @Order(5)
    void shouldLoseNothingWhenTheLeaderBrokerOfTheEventsPartitionStops() throws Exception {
        long couponId = createCoupon("Broker stop", STOCK, RATE);
        List<String> members = Crowd.members("broker", CROWD);
        var crowd = CompletableFuture.supplyAsync(
                () -> crowdOnBothApis(couponId, members, new AtomicInteger(), 16), CROWDS);
        awaitWallets(couponId, 60);

        int leader = stack.leaderOf(ClusterStack.partitionOf(couponId));
        stack.kafka.kill(leader);
        long stoppedAt = System.nanoTime();
        long walletsAtStop = stack.walletCount(couponId);

        List<Crowd.Answer> answers = crowd.get();
        Set<String> accepted = FaultStack.accepted(stack.url(stack.apis.get(0)), couponId, answers);
        FaultReport.settleAndCheck(
                TABLE,
                stack.jdbc,
                "the leader broker of the event's partition kill -9 (2 of 3 left)",
                couponId,
                accepted,
                stoppedAt,
                "stopped at " + walletsAtStop + " wallets; " + Crowd.countByStatus(answers),
                () -> stack.diagnosis(couponId));
        FaultReport.assertEveryoneTold(stack.url(stack.apis.get(0)), couponId, accepted);
        assertPublishedOnceUpToABatch(couponId, accepted);
        assertAnsweredAsTheContractSays(answers);
    }

    /** How many requests of the event were published more than once, in the log whether or not the scenario passes. */
    private static void reportPublications(long couponId) {
        Map<String, Integer> published = stack.publications(couponId);
        System.out.printf(
                Locale.ROOT,
                "FAILOVER coupon %d: %d requests published, %d of them more than once%n",
                couponId,
                published.size(),
                published.values().stream().filter(times -> times > 1).count());
    }

    /**
     * Whatever fails, a member hears 202, 409 or 503 (fail closed: "unavailable, ask again"; docs/http-api.md), or
     * nothing from an instance that died; never a 500, which says neither whether they were admitted nor what to do.
     */
    private static void assertAnsweredAsTheContractSays(List<Crowd.Answer> answers) {
        assertThat(Crowd.countByStatus(answers).keySet())
                .as("the answers' status codes")
                .isSubsetOf(Crowd.NO_ANSWER, 202, 409, 503);
    }

    /** Half the members ask the first api, half the second, at once (a load balancer); every answer. */
    private static List<Crowd.Answer> crowdOnBothApis(
            long couponId, List<String> members, AtomicInteger answered, int concurrency) {
        int half = members.size() / 2;
        var first = CompletableFuture.supplyAsync(
                () -> Crowd.ask(
                        stack.url(stack.apis.get(0)), couponId, members.subList(0, half), 0, concurrency, answered),
                CROWDS);
        var second = CompletableFuture.supplyAsync(
                () -> Crowd.ask(
                        stack.url(stack.apis.get(1)),
                        couponId,
                        members.subList(half, members.size()),
                        0,
                        concurrency,
                        answered),
                CROWDS);
        return Stream.of(first.join(), second.join()).flatMap(List::stream).toList();
    }

    /** An event of one stock shard (or {@code -Dfailover.shards}). */
    private static long createCoupon(String name, int quantity, int rate) {
        return createCoupon(name, quantity, rate, 1);
    }

    /** An event of {@code shards} stock shards (or {@code -Dfailover.shards}). */
    private static long createCoupon(String name, int quantity, int rate, int shards) {
        return Stack.createCoupon(stack.http(stack.apis.get(0)), name, quantity, rate, ClusterStack.shards(shards));
    }

    /** Events until there is one on each partition of the request topic; those in between stay unused. */
    private static List<Long> onePerPartition(String name, int quantity) {
        Long[] byPartition = new Long[3];
        for (int tries = 0; tries < 30 && Stream.of(byPartition).anyMatch(id -> id == null); tries++) {
            long couponId = createCoupon(name, quantity, 1);
            byPartition[ClusterStack.partitionOf(couponId)] = couponId;
        }
        assertThat(byPartition).as("an event on each partition").doesNotContainNull();
        return List.of(byPartition);
    }

    private static void setRate(long couponId, int rate) {
        stack.http(stack.apis.get(0))
                .patch()
                .uri("/admin/v1/coupons/" + couponId)
                .header("Authorization", "Bearer " + Stack.token("operator", List.of("coupon-admin")))
                .contentType(org.springframework.http.MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", rate))
                .exchange()
                .expectStatus()
                .isOk();
    }

    /** The api instance whose drainer holds the event's lease (its owner id starts with the process id). */
    private static ChildJvm drainerOf(long couponId) throws Exception {
        String owner = await().atMost(Duration.ofSeconds(20))
                .until(() -> stack.redis.get(CouponKeys.lease(couponId)), value -> value != null && !value.isBlank());
        for (ChildJvm api : stack.apis) {
            if (owner.startsWith(api.pid() + "@")) {
                return api;
            }
        }
        throw new IllegalStateException("no api instance owns the lease " + owner);
    }

    private static void awaitWallets(long couponId, long count) {
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(50))
                .until(() -> stack.walletCount(couponId) >= count);
    }

    /** Most wallets issued in any {@code window} (sorted timestamps). */
    private static int peakIn(List<Timestamp> sorted, Duration window) {
        int peak = 0;
        int from = 0;
        for (int to = 0; to < sorted.size(); to++) {
            while (sorted.get(to).getTime() - sorted.get(from).getTime() >= window.toMillis()) {
                from++;
            }
            peak = Math.max(peak, to - from + 1);
        }
        return peak;
    }

    /**
     * Each accepted request published, and none beyond one batch more than once. One drainer at a time per event (the
     * lease) publishes a range again only when the instance before it stopped between Kafka's acknowledgement and the
     * cursor's move: killed, or stalled longer than the lease (5 s), which a machine this busy does to a thread. Without
     * the lease both instances publish nearly every batch.
     */
    private static void assertPublishedOnceUpToABatch(long couponId, Set<String> accepted) {
        reportPublications(couponId);
        Map<String, Integer> published = stack.publications(couponId);
        assertThat(published.keySet())
                .as("the requests published are the accepted ones")
                .isEqualTo(accepted);
        List<Map.Entry<String, Integer>> again = published.entrySet().stream()
                .filter(entry -> entry.getValue() > 1)
                .toList();
        assertThat(again.size())
                .as(
                        "requests published more than once (of %d), e.g. %s",
                        published.size(), again.stream().limit(5).toList())
                .isLessThanOrEqualTo(ClusterStack.DRAIN_BATCH);
    }
}
