package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.ReactiveZSetOperations;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.ZSetOperations;

/** The gate's sold-out memory against a queue in the real Redis: loaded once, dropped when the queue can grow again. */
class AdmissionGateTest {

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();
    private static final Admission SOLD_OUT = new Admission(Admission.Outcome.SOLD_OUT, 0, 0, 0);
    private static final Admission ADMITTED = new Admission(Admission.Outcome.ADMITTED, 3, 0, 0);

    private Instant now = Instant.parse("2026-11-22T08:00:00Z");
    private final Clock clock = new Clock() {
        @Override
        public ZoneOffset getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    };

    /** Every sorted-set read the gate sends, with its arguments; the reads themselves go to the real Redis. */
    private final List<List<Object>> zsetCalls = new CopyOnWriteArrayList<>();

    private final AdmissionGate gate = new AdmissionGate(
            new ReactiveStringRedisTemplate((LettuceConnectionFactory) REDIS.getConnectionFactory()) {
                @Override
                public ReactiveZSetOperations<String, String> opsForZSet() {
                    return recording(super.opsForZSet());
                }
            },
            clock);

    @SuppressWarnings("unchecked")
    private ReactiveZSetOperations<String, String> recording(ReactiveZSetOperations<String, String> real) {
        return (ReactiveZSetOperations<String, String>) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {ReactiveZSetOperations.class}, (proxy, method, args) -> {
                    List<Object> call = new ArrayList<>();
                    call.add(method.getName());
                    call.addAll(args == null ? List.of() : Arrays.asList(args));
                    zsetCalls.add(call);
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    private long couponId;

    @BeforeEach
    void soldOutQueue() {
        couponId = ThreadLocalRandom.current().nextLong(1_000_000_000L, 2_000_000_000L);
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), "first", 1);
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), "second", 2);
    }

    private Optional<Admission.Outcome> refusal(String member) {
        return gate.localRefusal(couponId, member);
    }

    private void learnSoldOutAndWaitForTheQueue() {
        gate.learn(couponId, SOLD_OUT);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> refusal("someone-else").isPresent());
    }

    @Test
    void shouldRefuseOthersButNeverAMemberOfTheSoldOutQueue() {
        learnSoldOutAndWaitForTheQueue();

        assertThat(refusal("late")).contains(Admission.Outcome.SOLD_OUT);
        assertThat(refusal("first")).isEmpty();
        assertThat(refusal("second")).isEmpty();
    }

    @Test
    void shouldForgetTheQueueWhenRedisAdmitsAgainAndLoadTheNewOneAtTheNextSellOut() {
        learnSoldOutAndWaitForTheQueue();

        // Redis lost the coupon and was restored from MySQL with stock left: it admits again
        gate.learn(couponId, ADMITTED);
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), "third", 3);
        assertThat(refusal("late")).as("Redis decides again").isEmpty();
        assertThat(refusal("third")).isEmpty();

        learnSoldOutAndWaitForTheQueue();
        assertThat(refusal("third"))
                .as("admitted after the restore: still 200, never a local 409")
                .isEmpty();
        assertThat(refusal("late")).contains(Admission.Outcome.SOLD_OUT);
    }

    @Test
    void shouldReadALargeSoldOutQueueInPagesAndHoldEveryMember() {
        int members = 2 * AdmissionGate.PAGE_SIZE + 500;
        Set<ZSetOperations.TypedTuple<String>> queue = new HashSet<>();
        for (int i = 0; i < members; i++) {
            queue.add(ZSetOperations.TypedTuple.of("member-" + i, (double) i + 3));
        }
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), queue);

        learnSoldOutAndWaitForTheQueue();

        List<List<Object>> ranges = zsetCalls.stream()
                .filter(call -> call.getFirst().equals("range"))
                .toList();
        assertThat(ranges)
                .as("one ZRANGE per page of %d", AdmissionGate.PAGE_SIZE)
                .hasSize(3);
        for (List<Object> call : ranges) {
            Range<?> range = (Range<?>) call.get(2);
            long from = ((Number) range.getLowerBound().getValue().orElseThrow()).longValue();
            long to = ((Number) range.getUpperBound().getValue().orElseThrow()).longValue();
            assertThat(to - from + 1).isLessThanOrEqualTo(AdmissionGate.PAGE_SIZE);
        }
        for (String member : List.of("first", "second", "member-0", "member-10000", "member-" + (members - 1))) {
            assertThat(refusal(member)).as(member).isEmpty();
        }
        assertThat(refusal("late")).contains(Admission.Outcome.SOLD_OUT);
    }

    @Test
    void shouldAskRedisAgainAfterASecondAndForgetAnIdleCoupon() {
        learnSoldOutAndWaitForTheQueue();

        now = now.plusMillis(AdmissionGate.VALID_MILLIS);
        assertThat(refusal("late"))
                .as("a refusal is answered locally for a second")
                .isEmpty();

        now = now.plusMillis(AdmissionGate.IDLE_MILLIS);
        gate.flushRefusalCounts();
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), "fourth", 4);
        gate.learn(couponId, SOLD_OUT);
        // forgotten, so this sell-out loads the queue afresh (with the member added since)
        await().atMost(Duration.ofSeconds(30)).until(() -> refusal("late").isPresent());
        assertThat(refusal("fourth")).isEmpty();
    }

    @Test
    void shouldLetRedisDecideWhileARestoresBaseCountsMembersTheWorkerHasNotPutBackYet() {
        // restored from MySQL: one admission published before the loss, not decided then, is known only as a count
        REDIS.opsForHash().put(CouponKeys.meta(couponId), "base", "1");
        gate.learn(couponId, SOLD_OUT);
        await().atMost(Duration.ofSeconds(30)).until(() -> gate.isUnsettled(couponId));
        assertThat(refusal("late")).as("Redis decides").isEmpty();
        assertThat(refusal("returning"))
                .as("a member the worker may still put back is never refused locally")
                .isEmpty();
        assertThat(zsetCalls).as("no queue read while unsettled").isEmpty();

        // the worker decided them and put them back (record_results.lua: base - 1)
        REDIS.opsForZSet().add(CouponKeys.queue(couponId), "returning", 3);
        REDIS.opsForHash().put(CouponKeys.meta(couponId), "base", "0");
        gate.learn(couponId, SOLD_OUT);
        assertThat(refusal("late"))
                .as("still marked unsettled until the next second")
                .isEmpty();
        gate.flushRefusalCounts();
        learnSoldOutAndWaitForTheQueue();
        assertThat(refusal("returning")).isEmpty();
        assertThat(refusal("late")).contains(Admission.Outcome.SOLD_OUT);
    }

    @Test
    void shouldCountAnEventInShardsSettledOnceEveryMemberOfTheBaseCameBackOrHoldsASecondPlace() {
        int shards = 3;
        REDIS.opsForHash().put(CouponKeys.meta(couponId), "base", "2");
        String back = com.flashcoupon.contract.StockShards.tag(couponId, shards, 1);
        REDIS.opsForHash().put(com.flashcoupon.contract.StockShards.stock(back), "back", "1");
        REDIS.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(back), "came-back", 1);
        gate.learn(couponId, SOLD_OUT, shards);
        await().atMost(Duration.ofSeconds(30)).until(() -> gate.isUnsettled(couponId));
        assertThat(refusal("late"))
                .as("one of the base still unknown: Redis decides")
                .isEmpty();

        String again = com.flashcoupon.contract.StockShards.tag(couponId, shards, 2);
        REDIS.opsForHash().put(com.flashcoupon.contract.StockShards.stock(again), "again", "1");
        REDIS.opsForZSet().add(com.flashcoupon.contract.StockShards.queue(again), "second-place", 2);
        gate.flushRefusalCounts();
        gate.learn(couponId, SOLD_OUT, shards);
        await().atMost(Duration.ofSeconds(30)).until(() -> refusal("late").isPresent());
        assertThat(refusal("came-back")).isEmpty();
        assertThat(refusal("second-place")).isEmpty();
    }
}
