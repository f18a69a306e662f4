package com.flashcoupon.api.drain;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.support.ApiInstance;
import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.CrashAfterPublish;
import com.flashcoupon.api.support.HeldAcks;
import com.flashcoupon.api.support.SlowAcks;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.api.support.TopicRecords;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.IssueRequested;
import com.flashcoupon.contract.RecordSignature;
import com.flashcoupon.contract.Topics;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.LongStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.http.MediaType;

/** The drainer against the real Redis and an in-process KRaft broker. */
@ApiTest
class DrainTest extends ApiTestBase {

    private final StringRedisTemplate redis = TestEnvironment.redis();
    private TopicRecords<IssueRequested> records;

    @Autowired
    private DataSource dataSource;

    @Autowired
    private MeterRegistry meters;

    @Autowired
    private ApiProperties properties;

    @Value("${spring.kafka.bootstrap-servers}")
    private String bootstrapServers;

    @Value("${coupon.record.signing-key}")
    private String signingKey;

    @BeforeEach
    void subscribe() {
        records = TopicRecords.requested(bootstrapServers);
    }

    @AfterEach
    void close() {
        if (records != null) {
            records.close();
        }
    }

    private void admit(long couponId, int members) {
        admit(couponId, 1, members);
    }

    private void admit(long couponId, int from, int members) {
        for (int i = from; i < from + members; i++) {
            requestCoupon(couponId, "drain-" + couponId + "-" + i)
                    .expectStatus()
                    .isAccepted();
        }
    }

    private long cursor(long couponId) {
        String value = redis.opsForValue().get(CouponKeys.cursor(couponId));
        return value == null ? 0 : Long.parseLong(value);
    }

    @Test
    void shouldPublishEveryAdmittedRequestInAdmissionOrderWhenDrained() {
        long id = createCoupon(50, 1_000);
        admit(id, 50);

        await().atMost(Duration.ofSeconds(20)).until(() -> published(id).size() >= 50);

        List<IssueRequested> published = published(id);
        assertThat(published).hasSize(50);
        assertThat(published).extracting(IssueRequested::sequence).isSorted();
        assertThat(published)
                .extracting(IssueRequested::sequence)
                .containsExactlyElementsOf(LongStream.rangeClosed(1, 50).boxed().toList());
        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 50);
        assertThat(jdbc.sql("SELECT published_count FROM coupon WHERE id = ?")
                        .param(id)
                        .query(Integer.class)
                        .single())
                .isEqualTo(50);
    }

    /** Each record carries its signature under the key shared with the worker, and a signature holds for it alone. */
    @Test
    void shouldSignEveryPublishedRequestWithTheSharedKey() {
        long id = createCoupon(5, 1_000);
        admit(id, 5);

        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        records.records(request -> request.couponId() == id).size() >= 5);

        var shared = RecordSignature.of(signingKey);
        var other = RecordSignature.of("a-key-the-worker-does-not-have-0123456789");
        var published = records.records(request -> request.couponId() == id);
        assertThat(published).hasSize(5).allSatisfy(record -> {
            assertThat(shared.verify(record.value(), record.signature()))
                    .as("signed with the shared key")
                    .isTrue();
            assertThat(other.verify(record.value(), record.signature())).isFalse();
        });
        var first = published.get(0);
        var second = published.get(1);
        assertThat(shared.verify(second.value(), first.signature()))
                .as("one record's signature on another")
                .isFalse();
    }

    /** Outside the local profile a drainer without the shared key, or with the public local one, does not start. */
    @Test
    void shouldRefuseToStartWithoutARecordSigningKeyOutsideTheLocalProfile() {
        assertThatThrownBy(() -> ApiInstance.start(bootstrapServers, Map.of("coupon.record.signing-key", "")))
                .hasStackTraceContaining("COUPON_RECORD_SIGNING_KEY");
        assertThatThrownBy(() -> ApiInstance.start(
                        bootstrapServers, Map.of("coupon.record.signing-key", RecordSignature.LOCAL_KEY)))
                .hasStackTraceContaining("COUPON_RECORD_SIGNING_KEY");
    }

    /**
     * The drainers once read a Redis set of coupon ids that the mirror filled in a second step: a crash or an error
     * between the two steps left an admitting coupon that nothing drained. The list now comes from MySQL.
     */
    @Test
    void shouldDrainACouponWhenNoRedisKeyListsIt() {
        long id = createCoupon(5, 1_000);
        redis.delete("cpn:drain");

        admit(id, 5);

        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 5);
    }

    @Test
    void shouldPublishTheBatchAgainWhenCrashingBetweenAcknowledgementAndCursorAdvance() {
        long id = createCoupon(10, 1_000);
        CrashAfterPublish.arm(id);
        admit(id, 10);

        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 10);
        long[] crashed = CrashAfterPublish.crashedBatch(id);
        assertThat(crashed).as("the injected crash happened").isNotNull();
        int expected = 10 + (int) crashed[1];
        await().atMost(Duration.ofSeconds(30)).until(() -> published(id).size() >= expected);

        // at least once: the crashed batch twice, everything else once, nothing missing
        Map<Long, Long> copies =
                published(id).stream().collect(Collectors.groupingBy(IssueRequested::sequence, Collectors.counting()));
        assertThat(copies.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, 10).boxed().toList());
        copies.forEach((sequence, count) -> {
            boolean inCrashedBatch = sequence > crashed[0] && sequence <= crashed[0] + crashed[1];
            assertThat(count).as("copies of sequence %d", sequence).isEqualTo(inCrashedBatch ? 2L : 1L);
        });
    }

    @Test
    void shouldChangeTheDrainPaceWhenAnOperatorChangesTheRate() {
        long id = createCoupon(300, 5);
        long started = System.nanoTime();
        admit(id, 300);
        // some published at 5 per second (two seconds' worth at least), and never more than the rate over the time
        // since the first admission plus a tick's worth: the bound follows the machine's own pace
        await().atMost(Duration.ofSeconds(60)).until(() -> cursor(id) >= 10);
        long slowPublished = cursor(id);
        double slowSeconds = (System.nanoTime() - started) / 1e9;
        assertThat(slowPublished).isLessThanOrEqualTo((long) Math.ceil(5 * slowSeconds) + 2);

        client().patch()
                .uri("/admin/v1/coupons/{id}", id)
                .header("Authorization", "Bearer " + TestEnvironment.adminToken())
                .contentType(MediaType.APPLICATION_JSON)
                .bodyValue(Map.of("issueRatePerSecond", 1_000))
                .exchange()
                .expectStatus()
                .isOk()
                .expectBody()
                .jsonPath("$.issueRatePerSecond")
                .isEqualTo(1_000);
        long raised = System.nanoTime();

        // the rest goes faster than 5 a second could have sent it (nearly a minute's worth at 5 a second)
        await().atMost(Duration.ofSeconds(50)).until(() -> cursor(id) == 300);
        double fastSeconds = (System.nanoTime() - raised) / 1e9;
        assertThat(300 - slowPublished)
                .as("published in %.1f s after the rate change", fastSeconds)
                .isGreaterThan((long) Math.ceil(5 * fastSeconds) + 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> published(id).size() >= 300);
        List<IssueRequested> published = published(id);
        Map<Long, IssueRequested> bySequence = published.stream()
                .collect(Collectors.toMap(IssueRequested::sequence, Function.identity(), (a, b) -> a));
        assertThat(bySequence).hasSize(300);
        assertThat(Collections.max(bySequence.keySet())).isEqualTo(300);
    }

    @Test
    void shouldKeepTheLeaseWhileKafkaIsSlowToAcknowledgeSoNoOtherInstancePublishesTheBatchAgain() throws Exception {
        long id = createCoupon(10, 1_000);
        SlowAcks.hold();
        try {
            admit(id, 3);
            String lease = CouponKeys.lease(id);
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.hasKey(lease));
            String owner = redis.opsForValue().get(lease);
            long firstSeen = System.nanoTime();
            Duration ttl = properties.drain().leaseTtl();

            // Past the lease's time-to-live, the batch still unacknowledged: another instance tries to take the coupon.
            // Not after a fixed sleep: once the renewals are seen (the lease's remaining time rose again, twice) and
            // the
            // lease is still this instance's later than its time-to-live after it was first seen.
            long[] remaining = {Long.MAX_VALUE};
            int[] renewals = {0};
            await("the lease of coupon " + id + " renewed twice and held past its time-to-live (" + ttl
                            + ") while the batch waits for Kafka's acknowledgement")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(50))
                    .until(() -> {
                        long now = redis.getExpire(lease, TimeUnit.MILLISECONDS);
                        if (now > remaining[0]) {
                            renewals[0]++;
                        }
                        remaining[0] = now;
                        return renewals[0] >= 2
                                && System.nanoTime() - firstSeen > ttl.toNanos()
                                && owner.equals(redis.opsForValue().get(lease));
                    });
            assertThat(cursor(id))
                    .as("the drainer still waits for the acknowledgement")
                    .isZero();
            List<?> claim = redis.execute(
                    DrainLease.CLAIM, DrainLease.claimKeys(id), "another-instance", Long.toString(ttl.toMillis()));
            assertThat(((Number) claim.get(0)).longValue())
                    .as("the lease was renewed while the batch waited")
                    .isZero();
        } finally {
            SlowAcks.release();
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> cursor(id) == 3);
        // one poll may bring nothing yet: read until the three are there, then check none came twice
        await().atMost(Duration.ofSeconds(30)).until(() -> published(id).size() >= 3);
        assertThat(published(id)).extracting(IssueRequested::sequence).containsExactly(1L, 2L, 3L);
    }

    /**
     * F1: the coupon row locked (as the worker's {@code SELECT ... FOR UPDATE} holds it while MySQL is slow) for longer
     * than the drain lease. The published mark once waited for the lock on the drain thread, the lease lapsed, the
     * cursor never moved and the same batch went to Kafka again every turn. The drain keeps moving at the coupon's
     * rate, every request exactly once.
     */
    @Test
    void shouldKeepDrainingAtTheRateWhileTheCouponRowIsLockedForLongerThanTheLease() throws Exception {
        int rate = 10;
        long id = createCoupon(200, rate);
        admit(id, 1); // the event in Redis before the lock
        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 1);
        long started;
        try (Connection lock = dataSource.getConnection()) {
            lock.setAutoCommit(false);
            try (PreparedStatement select = lock.prepareStatement("SELECT id FROM coupon WHERE id = ? FOR UPDATE")) {
                select.setLong(1, id);
                select.executeQuery().close();
            }
            try {
                started = System.nanoTime();
                admit(id, 2, 100);
                // ten seconds' worth at the rate, twice the lease (5 s), the row locked all along: the cursor moves
                await().atMost(Duration.ofSeconds(40)).until(() -> cursor(id) == 101);
            } finally {
                lock.rollback();
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> published(id).size() >= 101);
        double seconds = (System.nanoTime() - started) / 1e9;
        Map<Long, Long> copies =
                published(id).stream().collect(Collectors.groupingBy(IssueRequested::sequence, Collectors.counting()));
        assertThat(copies.keySet())
                .containsExactlyInAnyOrderElementsOf(
                        LongStream.rangeClosed(1, 101).boxed().toList());
        assertThat(copies)
                .allSatisfy((sequence, count) ->
                        assertThat(count).as("copies of sequence %d", sequence).isEqualTo(1L));
        assertThat(published(id).size() - 1)
                .as("published in %.1f s at %d a second", seconds, rate)
                .isLessThanOrEqualTo((int) Math.ceil(rate * seconds) + rate + 1);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> jdbc.sql("SELECT published_count FROM coupon WHERE id = ?")
                                .param(id)
                                .query(Integer.class)
                                .single()
                        == 101);
    }

    /**
     * F17: one field of the coupon's drain state in Redis that is not a number (written by hand, or by another version)
     * once made the coupon's drain throw on every tick, a stall nothing ended. It is logged, counted and skipped, and
     * the stored rate is written again.
     */
    @Test
    void shouldKeepDrainingACouponWhoseRedisStateHasAFieldThatIsNotANumber() {
        long id = createCoupon(20, 1_000);
        admit(id, 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 1);
        double before = malformedFields();
        redis.opsForHash().put(CouponKeys.meta(id), "effRate", "fast");
        redis.opsForHash().put(CouponKeys.stats(id), "writeMs", "slow");
        redis.opsForHash().put(CouponKeys.stats(id), "writeAt", "now");

        admit(id, 2, 5);

        await().atMost(Duration.ofSeconds(20)).until(() -> cursor(id) == 6);
        assertThat(malformedFields()).isGreaterThan(before);
        await().atMost(Duration.ofSeconds(20))
                .until(() -> !"fast".equals(redis.opsForHash().get(CouponKeys.meta(id), "effRate")));
    }

    private double malformedFields() {
        var counter = meters.find("coupon.drain.meta.malformed").counter();
        return counter == null ? 0 : counter.count();
    }

    /**
     * F5: an api instance that reaches Redis but whose Kafka acknowledgements never come (cut from the broker's
     * leader) once kept every lease it held: the wait for the acknowledgement renewed it for 30 s, the failure was
     * followed by a claim that renewed it again, and the coupon stalled on every instance. After a failed batch the
     * instance gives the lease up, and this one (the test's api) drains the coupon.
     */
    @Test
    void shouldHandTheCouponToAnotherInstanceWhenThisOneGetsNoAcknowledgementFromKafka() {
        HeldAcks.hold();
        Map<String, String> settings = Map.of(
                "spring.kafka.producer.properties.interceptor.classes", HeldAcks.class.getName(),
                "coupon.drain.tick", "20ms", // it claims before this api does
                "coupon.drain.adaptive.enabled", "false",
                "coupon.warmup.requests", "0",
                "coupon.ratelimit.member-per-second", "0",
                "coupon.ratelimit.address-per-second", "0");
        ConfigurableApplicationContext cut = ApiInstance.start(bootstrapServers, settings);
        try {
            // the coupon is the cut instance's when it claims first; another coupon when this api did
            long id = 0;
            for (int attempt = 0; attempt < 5 && (id == 0 || !HeldAcks.sent(Topics.key(id))); attempt++) {
                long coupon = createCoupon(30, 1_000);
                admit(coupon, 30);
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> HeldAcks.sent(Topics.key(coupon)) || cursor(coupon) == 30);
                id = coupon;
            }
            assertThat(HeldAcks.sent(Topics.key(id)))
                    .as("the cut instance took a coupon")
                    .isTrue();
            long taken = id;

            await().atMost(Duration.ofSeconds(75)).until(() -> cursor(taken) == 30);
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> published(taken).stream()
                                    .map(IssueRequested::sequence)
                                    .distinct()
                                    .count()
                            == 30);
        } finally {
            HeldAcks.release(); // before closing it: its producer waits for the held acknowledgements
            cut.close();
        }
    }

    /** Every record of this coupon published so far, in partition order. */
    private List<IssueRequested> published(long couponId) {
        return records.matching(r -> r.couponId() == couponId);
    }
}
