package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.core.StringRedisTemplate;

/** {@code scripts/admit.lua} run directly against the real Redis (database 10), no HTTP in between. */
class AdmissionScriptTest {

    private static final AtomicLong IDS =
            new AtomicLong(ThreadLocalRandom.current().nextLong(1L << 40, 1L << 50));
    private static StringRedisTemplate redis;

    @BeforeAll
    static void connect() {
        redis = TestEnvironment.redis();
    }

    /** A coupon mirrored the way {@code mirror.lua} leaves it; returns its id. */
    private static long coupon(int total, long openAt, long closeAt, boolean closed) {
        long id = IDS.incrementAndGet();
        redis.opsForHash()
                .putAll(
                        CouponKeys.meta(id),
                        Map.of(
                                "name",
                                "c",
                                "total",
                                Integer.toString(total),
                                "openAt",
                                Long.toString(openAt),
                                "closeAt",
                                Long.toString(closeAt),
                                "closed",
                                closed ? "1" : "0",
                                "rate",
                                "100",
                                "base",
                                "0"));
        return id;
    }

    private static long openCoupon(int total) {
        return coupon(total, System.currentTimeMillis() - 60_000, 0, false);
    }

    private static Admission admit(long id, String member) {
        return AdmitScript.read(redis.execute(AdmitScript.TEMPLATE_SCRIPT, AdmitScript.keys(id), member));
    }

    @Nested
    class Stock {

        @Test
        void shouldAdmitTheNthAndRefuseTheNextWhenStockIsN() {
            long id = openCoupon(3);

            assertThat(admit(id, "a").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(admit(id, "b").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            Admission third = admit(id, "c");
            Admission fourth = admit(id, "d");

            assertThat(third.outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(third.sequence()).isEqualTo(3);
            assertThat(fourth.outcome()).isEqualTo(Admission.Outcome.SOLD_OUT);
            assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(3);
            assertThat(redis.opsForHash().get(CouponKeys.stats(id), "rejectedSoldOut"))
                    .isEqualTo("1");
        }

        @Test
        void shouldCountTheStockFloorWhenRestoredAfterRedisLoss() {
            long id = openCoupon(5);
            redis.opsForHash().put(CouponKeys.meta(id), "base", "4");

            assertThat(admit(id, "a").outcome()).isEqualTo(Admission.Outcome.ADMITTED);
            assertThat(admit(id, "b").outcome()).isEqualTo(Admission.Outcome.SOLD_OUT);
        }

        @Test
        void shouldAdmitExactlyTheStockWhenOneThousandCallersRaceForOneHundred() throws Exception {
            long id = openCoupon(100);
            Map<String, Admission> answers = new ConcurrentHashMap<>();
            ExecutorService callers = Executors.newFixedThreadPool(64);
            CountDownLatch start = new CountDownLatch(1);
            for (int i = 0; i < 1000; i++) {
                String member = "m-" + i;
                callers.submit(() -> {
                    start.await();
                    answers.put(member, admit(id, member));
                    return null;
                });
            }
            start.countDown();
            callers.shutdown();
            assertThat(callers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();

            assertThat(answers).hasSize(1000);
            List<Admission> admitted = answers.values().stream()
                    .filter(a -> a.outcome() == Admission.Outcome.ADMITTED)
                    .toList();
            assertThat(admitted).hasSize(100);
            assertThat(admitted.stream().map(Admission::sequence))
                    .containsExactlyInAnyOrderElementsOf(java.util.stream.LongStream.rangeClosed(1, 100)
                            .boxed()
                            .toList());
            assertThat(answers.values())
                    .filteredOn(a -> a.outcome() == Admission.Outcome.SOLD_OUT)
                    .hasSize(900);
            assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(100);
        }
    }

    @Nested
    class Duplicates {

        @Test
        void shouldKeepFirstPositionWhenMemberAsksAgain() {
            long id = openCoupon(10);
            admit(id, "first");
            Admission original = admit(id, "again");
            admit(id, "third");

            Admission repeat = admit(id, "again");

            assertThat(repeat.outcome()).isEqualTo(Admission.Outcome.ALREADY_ASKED);
            assertThat(repeat.sequence()).isEqualTo(original.sequence()).isEqualTo(2);
            assertThat(redis.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(3);
        }

        @Test
        void shouldAnswerAlreadyAskedRatherThanSoldOutWhenStockRanOutAfterward() {
            long id = openCoupon(1);
            admit(id, "only");
            admit(id, "late");

            assertThat(admit(id, "only").outcome()).isEqualTo(Admission.Outcome.ALREADY_ASKED);
        }
    }

    @Nested
    class Window {

        @Test
        void shouldRefuseWhenBeforeOpenAt() {
            long id = coupon(10, System.currentTimeMillis() + 3_600_000, 0, false);

            assertThat(admit(id, "early").outcome()).isEqualTo(Admission.Outcome.NOT_OPEN_YET);
            assertThat(redis.hasKey(CouponKeys.queue(id))).isFalse();
        }

        @Test
        void shouldRefuseWhenAfterCloseAt() {
            long now = System.currentTimeMillis();
            long id = coupon(10, now - 3_600_000, now - 1_000, false);

            assertThat(admit(id, "late").outcome()).isEqualTo(Admission.Outcome.CLOSED);
            assertThat(redis.hasKey(CouponKeys.queue(id))).isFalse();
        }

        @Test
        void shouldRefuseWhenClosedByOperator() {
            long id = coupon(10, System.currentTimeMillis() - 60_000, 0, true);

            assertThat(admit(id, "m").outcome()).isEqualTo(Admission.Outcome.CLOSED);
            assertThat(redis.hasKey(CouponKeys.seq(id))).isFalse();
        }

        @Test
        void shouldReportMissingMirrorWhenRedisDoesNotKnowTheCoupon() {
            long id = IDS.incrementAndGet();

            assertThat(admit(id, "m").outcome()).isEqualTo(Admission.Outcome.MIRROR_MISSING);
            assertThat(redis.hasKey(CouponKeys.queue(id))).isFalse();
        }
    }
}
