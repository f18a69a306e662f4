package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Random sequences (seeded, reproducible) of admissions, repeated members, closes, reopenings and rate changes, run against the real Redis
 * scripts ({@code admit.lua}, with {@code mirror.lua} applying the operator's changes as the api does) and against a
 * plain-Java model of the rules; every answer must agree.
 */
class AdmissionModelPropertyTest {

    private static final RedisScript<Long> MIRROR = RedisScript.of(LuaScripts.text("scripts/mirror.lua"), Long.class);

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();
    private static final AtomicLong IDS = new AtomicLong(System.nanoTime() & ((1L << 40) - 1));

    sealed interface Step permits Ask, Close, Reopen, Rate {}

    record Ask(int member) implements Step {}

    record Close() implements Step {}

    record Reopen() implements Step {}

    record Rate(int perSecond) implements Step {}

    /** The rules of docs/architecture.md in plain Java: window, duplicate, stock cap, sequence. */
    static final class Model {
        final int total;
        final Map<String, Long> queue = new LinkedHashMap<>();
        boolean closed;
        int rate;

        Model(int total, int rate) {
            this.total = total;
            this.rate = rate;
        }

        Admission admit(String member) {
            if (closed) {
                return new Admission(Admission.Outcome.CLOSED, 0, 0, rate);
            }
            Long sequence = queue.get(member);
            if (sequence != null) {
                return new Admission(Admission.Outcome.ALREADY_ASKED, sequence, 0, rate);
            }
            if (queue.size() >= total) {
                return new Admission(Admission.Outcome.SOLD_OUT, 0, 0, rate);
            }
            long next = queue.size() + 1L;
            queue.put(member, next);
            return new Admission(Admission.Outcome.ADMITTED, next, 0, rate);
        }
    }

    /** 200 random cases; a failing seed is in the test's name, so it replays exactly. */
    static LongStream seeds() {
        return new Random().longs(200);
    }

    /** A random sequence: mostly members asking (25 of them, so many repeats), sometimes the operator acting. */
    static List<Step> steps(Random random) {
        int length = 1 + random.nextInt(80);
        List<Step> steps = new java.util.ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(16);
            steps.add(
                    pick < 12
                            ? new Ask(random.nextInt(25))
                            : pick == 12
                                    ? new Close()
                                    : pick == 13 ? new Reopen() : new Rate(1 + random.nextInt(100_000)));
        }
        return steps;
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void redisAgreesWithTheModel(long seed) {
        var random = new Random(seed);
        List<Step> steps = steps(random);
        int total = 1 + random.nextInt(20);
        int rate = 1 + random.nextInt(1000);
        long id = IDS.incrementAndGet();
        var model = new Model(total, rate);
        mirror(id, total, false, rate);
        for (Step step : steps) {
            switch (step) {
                case Ask ask -> {
                    String member = "m" + ask.member();
                    Admission expected = model.admit(member);
                    Admission actual = admit(id, member);
                    assertThat(actual.outcome()).as("%s after %s", step, steps).isEqualTo(expected.outcome());
                    assertThat(actual.sequence()).as("sequence of %s", member).isEqualTo(expected.sequence());
                    assertThat(actual.rate()).as("rate").isEqualTo(expected.rate());
                }
                case Close close -> {
                    model.closed = true;
                    mirror(id, total, true, model.rate);
                }
                case Reopen reopen -> {
                    model.closed = false;
                    mirror(id, total, false, model.rate);
                }
                case Rate change -> {
                    model.rate = change.perSecond();
                    mirror(id, total, model.closed, model.rate);
                }
            }
        }
        assertThat(REDIS.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(model.queue.size());
        REDIS.delete(List.of(
                CouponKeys.meta(id),
                CouponKeys.queue(id),
                CouponKeys.seq(id),
                CouponKeys.cursor(id),
                CouponKeys.stats(id)));
    }

    /** Each operator change raises the row's version, as MySQL does. */
    private static long version;

    private static void mirror(long id, int total, boolean closed, int rate) {
        REDIS.execute(
                MIRROR,
                List.of(
                        CouponKeys.meta(id),
                        CouponKeys.queue(id),
                        CouponKeys.seq(id),
                        CouponKeys.cursor(id),
                        CouponKeys.retired(id),
                        CouponKeys.done(id),
                        CouponKeys.result(id),
                        CouponKeys.restoring(id)),
                "model",
                Integer.toString(total),
                Long.toString(System.currentTimeMillis() - 60_000),
                "0",
                closed ? "1" : "0",
                Integer.toString(rate),
                "0",
                Long.toString(++version),
                "0");
    }

    private static Admission admit(long id, String member) {
        return AdmitScript.read(REDIS.execute(AdmitScript.TEMPLATE_SCRIPT, AdmitScript.keys(id), member));
    }
}
