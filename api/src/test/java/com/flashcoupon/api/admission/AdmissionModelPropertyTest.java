package com.flashcoupon.api.admission;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;
import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.draw.DrawRules;
import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.draw.RedisDraw;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.support.TestEnvironment;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * Random sequences (seeded, reproducible) of what members, the api's jobs and operators do to one event, run against
 * the real Redis scripts and against a plain-Java model of the rules of docs/architecture.md; every answer must agree.
 *
 * <ul>
 *   <li>Members ask ({@code admit.lua}), read their status ({@code status.lua}) and have their live stream ticked
 *       ({@code live_tick.lua}); the drainer claims the coupon ({@code drain_claim.lua}).
 *   <li>Half the cases are RANDOMIZED_START events: the window ends at a random step (and closes at the first script
 *       that runs after it, whichever), the draw job makes the draw at a random step ({@link RedisDraw} with a seed
 *       of the test's, as {@code DrawMaker} does), and the model says who is in it, who is placed where, and who is
 *       left out, in every script's answer.
 *   <li>Operators close, reopen and change the rate ({@code mirror.lua}, as the api applies their changes); Redis may
 *       lose the event and have it restored from MySQL ({@code mirror.lua} on empty keys: before the draw is recorded
 *       its entrants are gone; after, the draw stays made).
 *   <li>A third of the cases run with a member's rate limit on: a refused request must change nothing, so the model
 *       skips it, and any side effect shows in a later answer.
 * </ul>
 *
 * The exact boundary of the window ({@code now == drawAt}, by Redis' clock) is checked on its own, below.
 */
class AdmissionModelPropertyTest {

    private static final RedisScript<Long> MIRROR = RedisScript.of(CouponMirror.MIRROR_TEXT, Long.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> STATUS =
            RedisScript.of(DrawWindow.withWindow(RateLimits.withLimits("scripts/status.lua")), List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TICK =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/live_tick.lua")), List.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> CLAIM =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/drain_claim.lua")), List.class);

    private static final StringRedisTemplate REDIS = TestEnvironment.redis();
    private static final AtomicLong IDS = new AtomicLong(System.nanoTime() & ((1L << 40) - 1));
    private static final byte[] SEED = DrawRules.newSeed();

    /** A member's limit when a case runs with one: 20 requests a second, a burst of 2. */
    private static final String[] LIMITS_ON = {"20", "2", "0", "0"};

    private static final String[] LIMITS_OFF = {"0", "0", "0", "0"};

    sealed interface Step permits Ask, Read, Tick, Claim, EndWindow, MakeDraw, Close, Reopen, Rate, Restore {}

    record Ask(int member) implements Step {}

    record Read(int member) implements Step {}

    /** The live ticker, for the streams of these members (those in the draw are looked up as the hub does). */
    record Tick(List<Integer> members) implements Step {}

    record Claim() implements Step {}

    /** The RANDOMIZED_START window ends (its drawAt moves to the past); nothing for a FIFO event. */
    record EndWindow() implements Step {}

    record MakeDraw() implements Step {}

    record Close() implements Step {}

    record Reopen() implements Step {}

    record Rate(int perSecond) implements Step {}

    /** Redis loses the event and it is restored from MySQL, which knows no admission (nothing was published). */
    record Restore() implements Step {}

    /** The rules of docs/architecture.md in plain Java: window, draw, duplicate, stock cap, sequence. */
    static final class Model {
        final int total;
        final boolean randomized;
        final Map<String, Long> queue = new LinkedHashMap<>();
        /** the draw's entrants, in byte order (ids are ASCII) */
        final TreeSet<String> entrants = new TreeSet<>();

        boolean closed;
        boolean windowOver;
        boolean windowClosed;
        boolean drawn;
        boolean recorded;
        long seq;
        long drawFrom;
        long drawPlaces;
        long frozenEntrants;
        long held;
        int rate;

        Model(int total, int rate, boolean randomized) {
            this.total = total;
            this.rate = rate;
            this.randomized = randomized;
        }

        /** When the window ends, as mirrored: 0 for a FIFO event. */
        long drawAt() {
            return !randomized ? 0 : windowOver ? OVER : OPEN_UNTIL;
        }

        /** draw.lua's draw_window: 0 nothing to wait for, 1 open, 2 closed and not made; closes it when over. */
        int window() {
            if (!randomized || drawn) {
                return 0;
            }
            if (windowClosed) {
                return 2;
            }
            if (!windowOver) {
                return 1;
            }
            long room = total - queue.size();
            drawPlaces = Math.max(0, Math.min(room, entrants.size()));
            frozenEntrants = entrants.size();
            drawFrom = seq + 1;
            seq += drawPlaces;
            held = drawPlaces;
            windowClosed = true;
            return 2;
        }

        /** draw.lua's draw_odds. */
        long[] odds(int state) {
            if (state == 2) {
                return new long[] {frozenEntrants, drawPlaces};
            }
            long room = total - held - queue.size();
            return new long[] {entrants.size(), Math.max(0, Math.min(room, entrants.size()))};
        }

        Admission admit(String member) {
            if (closed) {
                return new Admission(Admission.Outcome.CLOSED, 0, 0, rate);
            }
            int state = window();
            if (state == 1) {
                boolean added = entrants.add(member);
                long[] odds = odds(state);
                return new Admission(
                        added ? Admission.Outcome.DRAW_ENTERED : Admission.Outcome.DRAW_ASKED_BEFORE,
                        odds[0],
                        drawAt(),
                        rate,
                        "",
                        odds[1]);
            }
            if (state == 2 && entrants.contains(member)) {
                return new Admission(
                        Admission.Outcome.DRAW_ASKED_BEFORE, frozenEntrants, drawAt(), rate, "DRAWING", drawPlaces);
            }
            Long sequence = queue.get(member);
            if (sequence != null) {
                return new Admission(Admission.Outcome.ALREADY_ASKED, sequence, 0, rate);
            }
            if (randomized && entrants.contains(member)) {
                return new Admission(Admission.Outcome.ALREADY_ASKED, 0, 0, rate, "F:SOLD_OUT");
            }
            if (queue.size() + held >= total) {
                return new Admission(Admission.Outcome.SOLD_OUT, 0, 0, rate);
            }
            queue.put(member, ++seq);
            return new Admission(Admission.Outcome.ADMITTED, seq, 0, rate);
        }

        /** status.lua's reply, as a list of what it says (found, sequence, result / in draw: entrants, places, state). */
        List<Object> read(String member) {
            int state = window();
            Long sequence = queue.get(member);
            if (sequence != null) {
                return List.of(1L, sequence, "");
            }
            if (randomized && entrants.contains(member)) {
                if (state == 0) {
                    return List.of(1L, 0L, "F:SOLD_OUT");
                }
                long[] odds = odds(state);
                return List.of(3L, odds[0], odds[1], (long) state);
            }
            return List.of(0L, 0L, "");
        }

        /** live_tick.lua: the draw's head (entrants, places, state), then each draw member's sequence, -1 or 0. */
        List<Long> tick(List<String> members) {
            int state = window();
            List<Long> reply = new ArrayList<>();
            long[] odds = state > 0 ? odds(state) : new long[] {0, 0};
            reply.add(odds[0]);
            reply.add(odds[1]);
            reply.add((long) state);
            for (String member : members) {
                Long sequence = queue.get(member);
                reply.add(sequence != null ? sequence : state == 0 && randomized ? -1L : 0L);
            }
            return reply;
        }

        /** drain_claim.lua: owned when something is queued and no draw is being made. */
        boolean claim() {
            int state = window();
            return !queue.isEmpty() && state != 2;
        }

        /** The draw job: closes the window if due, then places the lowest tickets at the sequences held. */
        void makeDraw() {
            if (window() != 2) {
                return;
            }
            List<String> placed =
                    DrawRules.draw(SEED, List.copyOf(entrants), drawPlaces).placed();
            for (int i = 0; i < placed.size(); i++) {
                queue.put(placed.get(i), drawFrom + i);
            }
            held = 0;
            drawn = true;
            recorded = true;
        }

        /** Redis lost everything of the event; MySQL restores its settings and, once recorded, that it was drawn. */
        void restore() {
            queue.clear();
            entrants.clear();
            seq = 0;
            held = 0;
            windowClosed = false;
            drawn = randomized && recorded;
        }
    }

    /** 200 random cases; a failing seed is in the test's name, so it replays exactly. */
    static LongStream seeds() {
        return new Random().longs(200);
    }

    /** A random sequence: mostly members asking and reading (25 of them, so many repeats), sometimes the rest. */
    static List<Step> steps(Random random) {
        int length = 1 + random.nextInt(100);
        List<Step> steps = new ArrayList<>(length);
        for (int i = 0; i < length; i++) {
            int pick = random.nextInt(24);
            steps.add(
                    pick < 11
                            ? new Ask(random.nextInt(25))
                            : pick < 15
                                    ? new Read(random.nextInt(25))
                                    : switch (pick) {
                                        case 15 ->
                                            new Tick(List.of(
                                                    random.nextInt(25), random.nextInt(25), random.nextInt(25)));
                                        case 16 -> new Claim();
                                        case 17, 18 -> new EndWindow();
                                        case 19 -> new MakeDraw();
                                        case 20 -> new Close();
                                        case 21 -> new Reopen();
                                        case 22 -> new Restore();
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
        String[] limits = random.nextInt(3) == 0 ? LIMITS_ON : LIMITS_OFF;
        long id = IDS.incrementAndGet();
        var model = new Model(total, rate, random.nextBoolean());
        var draw = new RedisDraw(REDIS, "model-test");
        mirror(id, model);
        for (Step step : steps) {
            String at = step + " after " + steps;
            switch (step) {
                case Ask ask -> {
                    String member = "m" + ask.member();
                    Admission actual = admit(id, member, limits);
                    if (actual.outcome() == Admission.Outcome.RATE_LIMITED) {
                        break; // refused: nothing changed, nothing charged
                    }
                    Admission expected = model.admit(member);
                    assertThat(actual).as(at).isEqualTo(expected);
                }
                case Read read -> {
                    String member = "m" + read.member();
                    List<?> reply = status(id, member, limits);
                    if (number(reply, 0) == 2) {
                        break; // refused by the limit: nothing read, the window not closed
                    }
                    List<Object> expected = model.read(member);
                    if (number(reply, 0) == 3) {
                        assertThat(List.of(3L, number(reply, 1), number(reply, 4), number(reply, 5)))
                                .as(at)
                                .isEqualTo(expected);
                    } else {
                        assertThat(List.of(number(reply, 0), number(reply, 1), text(reply, 2)))
                                .as(at)
                                .isEqualTo(expected);
                    }
                }
                case Tick tick -> {
                    List<String> members =
                            tick.members().stream().map(m -> "m" + m).distinct().toList();
                    List<String> inDraw =
                            members.stream().filter(model.entrants::contains).toList();
                    List<Long> expected = model.tick(inDraw);
                    assertThat(tick(id, inDraw)).as(at).isEqualTo(expected);
                }
                case Claim claim -> {
                    boolean expected = model.claim();
                    assertThat(claim(id)).as(at).isEqualTo(expected);
                }
                case EndWindow end -> {
                    model.windowOver = true;
                    mirror(id, model);
                }
                case MakeDraw make -> {
                    model.makeDraw();
                    RedisDraw.State state = draw.state(id);
                    if (state.window() == 2 && draw.lease(id)) {
                        List<String> entrants = draw.entrants(id);
                        draw.place(
                                id,
                                state.firstSequence(),
                                DrawRules.draw(SEED, entrants, state.places()).placed());
                        draw.release(id);
                    }
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
                case Restore restore -> {
                    model.restore();
                    REDIS.delete(CouponKeys.state(id));
                    mirror(id, model);
                }
            }
        }
        assertThat(REDIS.opsForZSet().zCard(CouponKeys.queue(id))).isEqualTo(model.queue.size());
        assertThat(model.queue.size() + model.held).as("the stock cap").isLessThanOrEqualTo(total);
        REDIS.delete(CouponKeys.state(id));
    }

    private static RedisClient client;
    private static StatefulRedisConnection<String, String> connection;

    @BeforeAll
    static void connect() {
        client = RedisClient.create(TestEnvironment.REDIS_URL);
        connection = client.connect();
    }

    @AfterAll
    static void disconnect() {
        connection.close();
        client.shutdown();
    }

    /**
     * The window is [openAt, drawAt) by Redis' clock: a member whose admission runs in the millisecond of drawAt is no
     * longer in the draw (the window closes, and they queue after every place it holds), one a microsecond earlier is.
     * On a clock the test sets ({@link #admitAt}): the script as the api sends it, its {@code TIME} answered with the
     * instant chosen, so the boundary is hit exactly, however slow the machine (once: a transaction had to land in that
     * very millisecond of Redis' own clock).
     */
    @Test
    void shouldCloseTheWindowInTheMillisecondOfDrawAt() {
        long id = IDS.incrementAndGet();
        long drawAt = redisMillis() + 60_000;
        mirror(id, 1_000_000, false, 100, drawAt, false);
        long lastMicroBefore = drawAt * 1_000 - 1;

        assertThat(admitAt(id, "b1", lastMicroBefore).outcome())
                .as("a member asking in the last microsecond before drawAt")
                .isEqualTo(Admission.Outcome.DRAW_ENTERED);
        assertThat(admitAt(id, "b2", lastMicroBefore).outcome()).isEqualTo(Admission.Outcome.DRAW_ENTERED);

        Admission at = admitAt(id, "b3", drawAt * 1_000);
        assertThat(at.outcome())
                .as("a member asking in the millisecond of drawAt")
                .isEqualTo(Admission.Outcome.ADMITTED);
        assertThat(at.sequence())
                .as("queued after every place the window held, one per entrant, in order of asking")
                .isEqualTo(3L);
        assertThat(admitAt(id, "b4", drawAt * 1_000 + 999).sequence())
                .as("later in that millisecond")
                .isEqualTo(4L);
        REDIS.delete(CouponKeys.state(id));
    }

    /**
     * One admission (limits off) with the script's {@code TIME} answering {@code micros}: the script as the api sends
     * it, behind a local {@code redis} whose {@code call} answers {@code TIME} so and passes everything else on.
     */
    @SuppressWarnings("rawtypes")
    private static Admission admitAt(long id, String member, long micros) {
        String clock = String.format("""
                local real = redis
                local redis = setmetatable({}, {__index = real})
                redis.call = function(command, ...)
                  if command == 'TIME' then return {'%d', '%d'} end
                  return real.call(command, ...)
                end
                """, micros / 1_000_000, micros % 1_000_000);
        String[] keys = CouponKeys.admission(id, CouponKeys.memberLimit(id, member), CouponKeys.addressLimit(id, ""));
        return AdmitScript.read(REDIS.execute(
                RedisScript.of(clock + AdmitScript.TEXT, List.class), List.of(keys), member, "0", "0", "0", "0"));
    }

    private static long redisMillis() {
        return millis(connection.sync().time());
    }

    @SuppressWarnings("unchecked")
    private static long millis(Object time) {
        List<String> parts = (List<String>) time;
        return Long.parseLong(parts.get(0)) * 1000 + Long.parseLong(parts.get(1)) / 1000;
    }

    /** Each operator change raises the row's version, as MySQL does. */
    private static long version;

    /** The drawAt of the cases' windows while they are open, and once they are over. */
    private static final long OPEN_UNTIL = System.currentTimeMillis() + 3_600_000;

    private static final long OVER = System.currentTimeMillis() - 1;

    private static void mirror(long id, Model model) {
        mirror(id, model.total, model.closed, model.rate, model.drawAt(), model.randomized && model.recorded);
    }

    private static void mirror(long id, int total, boolean closed, int rate, long drawAt, boolean drawn) {
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
                Long.toString(drawAt),
                drawn ? "1" : "0");
    }

    private static Admission admit(long id, String member, String[] limits) {
        String[] keys = CouponKeys.admission(id, CouponKeys.memberLimit(id, member), CouponKeys.addressLimit(id, ""));
        return AdmitScript.read(REDIS.execute(
                AdmitScript.TEMPLATE_SCRIPT, List.of(keys), member, limits[0], limits[1], limits[2], limits[3]));
    }

    private static List<?> status(long id, String member, String[] limits) {
        return REDIS.execute(
                STATUS,
                List.of(
                        CouponKeys.meta(id),
                        CouponKeys.queue(id),
                        CouponKeys.result(id),
                        CouponKeys.done(id),
                        CouponKeys.memberLimit(id, member),
                        CouponKeys.addressLimit(id, ""),
                        CouponKeys.draw(id),
                        CouponKeys.seq(id)),
                member,
                limits[0],
                limits[1],
                limits[2],
                limits[3]);
    }

    /** live_tick.lua with no result lookups and these draw members; its reply without done and rate. */
    private static List<Long> tick(long id, List<String> drawMembers) {
        List<String> args = new ArrayList<>();
        args.add("0");
        args.addAll(drawMembers);
        List<?> reply = REDIS.execute(
                TICK,
                List.of(
                        CouponKeys.meta(id),
                        CouponKeys.done(id),
                        CouponKeys.result(id),
                        CouponKeys.queue(id),
                        CouponKeys.draw(id),
                        CouponKeys.seq(id)),
                args.toArray());
        List<Long> values = new ArrayList<>();
        for (int i = 2; i < reply.size(); i++) {
            values.add(number(reply, i));
        }
        return values;
    }

    private static boolean claim(long id) {
        List<?> reply = REDIS.execute(
                CLAIM,
                List.of(
                        CouponKeys.lease(id),
                        CouponKeys.meta(id),
                        CouponKeys.queue(id),
                        CouponKeys.cursor(id),
                        CouponKeys.done(id),
                        CouponKeys.stats(id),
                        CouponKeys.seq(id),
                        CouponKeys.draw(id)),
                "model-test",
                "5000");
        return number(reply, 0) == 1;
    }
}
