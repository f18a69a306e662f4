package com.flashcoupon.api.admission;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.coupon.CouponMirror;
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
 * Random sequences (seeded, reproducible) of admissions, repeated members, closes, reopenings and rate changes, run
 * against the real Redis scripts ({@code admit.lua}, with {@code mirror.lua} applying the operator's changes as the api
 * does) and against a plain-Java model of the rules; every answer must agree. Half the cases are RANDOMIZED_START
 * events: members asking within the window draw tickets (the test draws them, from a small range half the time so
 * that ties happen), and the window ends at a random step; the model states that mode's order: the window's members
 * by ticket (ties by member id), before everyone after it, who come first-come.
 */
class AdmissionModelPropertyTest {

    private static final RedisScript<Long> MIRROR = RedisScript.of(LuaScripts.text("scripts/mirror.lua"), Long.class);

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();
    private static final AtomicLong IDS = new AtomicLong(System.nanoTime() & ((1L << 40) - 1));

    sealed interface Step permits Ask, Close, Reopen, Rate, EndWindow {}

    record Ask(int member, long ticket) implements Step {}

    /** The RANDOMIZED_START window ends (its drawAt moves to the past); nothing for a FIFO event. */
    record EndWindow() implements Step {}

    record Close() implements Step {}

    record Reopen() implements Step {}

    record Rate(int perSecond) implements Step {}

    /** The rules of docs/architecture.md in plain Java: window, draw, duplicate, stock cap, sequence. */
    static final class Model {
        final int total;
        final boolean randomized;
        final Map<String, Long> queue = new LinkedHashMap<>();
        /** the draw's tickets, while the window is open and after (its members stay known) */
        final Map<String, Long> tickets = new LinkedHashMap<>();

        boolean closed;
        boolean windowOver;
        boolean drawn;
        int rate;

        Model(int total, int rate, boolean randomized) {
            this.total = total;
            this.rate = rate;
            this.randomized = randomized;
        }

        /** The draw's members in the draw's order: by ticket, ties by member id (a sorted set's order). */
        List<String> drawOrder() {
            return tickets.entrySet().stream()
                    .sorted(Map.Entry.<String, Long>comparingByValue().thenComparing(Map.Entry.comparingByKey()))
                    .map(Map.Entry::getKey)
                    .toList();
        }

        Admission admit(String member, long ticket) {
            if (closed) {
                return new Admission(Admission.Outcome.CLOSED, 0, 0, rate);
            }
            if (randomized && !windowOver) {
                boolean asked = tickets.containsKey(member);
                tickets.putIfAbsent(member, ticket);
                long place = drawOrder().indexOf(member) + 1L;
                return new Admission(
                        asked ? Admission.Outcome.DRAW_ASKED_BEFORE : Admission.Outcome.DRAW_ENTERED, place, 0, rate);
            }
            if (randomized && !drawn) {
                drawn = true;
                for (String winner : drawOrder()) {
                    if (queue.size() < total) {
                        queue.put(winner, queue.size() + 1L);
                    }
                }
            }
            Long sequence = queue.get(member);
            if (sequence != null) {
                return new Admission(Admission.Outcome.ALREADY_ASKED, sequence, 0, rate);
            }
            if (tickets.containsKey(member)) {
                return new Admission(Admission.Outcome.ALREADY_ASKED, 0, 0, rate, "F:SOLD_OUT");
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
        boolean ties = random.nextBoolean();
        List<Step> steps = new java.util.ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(17);
            long ticket = ties ? random.nextInt(8) : random.nextLong(1L << 53);
            steps.add(
                    pick < 12
                            ? new Ask(random.nextInt(25), ticket)
                            : switch (pick) {
                                case 12 -> new Close();
                                case 13 -> new Reopen();
                                case 14 -> new EndWindow();
                                default -> new Rate(1 + random.nextInt(100_000));
                            });
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
        var model = new Model(total, rate, random.nextBoolean());
        mirror(id, model);
        for (Step step : steps) {
            switch (step) {
                case Ask ask -> {
                    String member = "m" + ask.member();
                    Admission expected = model.admit(member, ask.ticket());
                    Admission actual = admit(id, member, ask.ticket());
                    assertThat(actual.outcome()).as("%s after %s", step, steps).isEqualTo(expected.outcome());
                    assertThat(actual.sequence()).as("sequence of %s", member).isEqualTo(expected.sequence());
                    assertThat(actual.rate()).as("rate").isEqualTo(expected.rate());
                    assertThat(actual.result()).as("result of %s", member).isEqualTo(expected.result());
                }
                case Close close -> {
                    model.closed = true;
                    mirror(id, model);
                }
                case Reopen reopen -> {
                    model.closed = false;
                    mirror(id, model);
                }
                case Rate change -> {
                    model.rate = change.perSecond();
                    mirror(id, model);
                }
                case EndWindow end -> {
                    model.windowOver = true;
                    mirror(id, model);
                }
            }
        }
        assertThat(REDIS.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(model.queue.size());
        assertThat(model.queue.size()).as("the stock cap").isLessThanOrEqualTo(total);
        REDIS.delete(CouponKeys.state(id));
    }

    /** Each operator change raises the row's version, as MySQL does. */
    private static long version;

    /** The window of a RANDOMIZED_START event: open until an {@link EndWindow} step, then over. */
    private static void mirror(long id, Model model) {
        long now = System.currentTimeMillis();
        long drawAt = !model.randomized ? 0 : model.windowOver ? now - 1 : now + 3_600_000;
        mirror(id, model.total, model.closed, model.rate, drawAt);
    }

    private static void mirror(long id, int total, boolean closed, int rate, long drawAt) {
        REDIS.execute(
                MIRROR,
                CouponMirror.keys(id),
                "model",
                Integer.toString(total),
                Long.toString(System.currentTimeMillis() - 60_000),
                "0",
                closed ? "1" : "0",
                Integer.toString(rate),
                "0",
                Long.toString(++version),
                "0",
                "",
                Long.toString(drawAt));
    }

    private static Admission admit(long id, String member, long ticket) {
        return AdmitScript.read(REDIS.execute(
                AdmitScript.TEMPLATE_SCRIPT, AdmitScript.keys(id), member, "0", "0", "0", "0", Long.toString(ticket)));
    }
}
