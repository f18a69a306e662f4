package com.flashcoupon.api.shard;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.api.draw.DrawRules;
import com.flashcoupon.contract.StockShards;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The admission model of a fair start over K > 1 stock shards (docs/architecture.md, "A fair start across shards"):
 * random sequences (seeded, reproducible) of members asking and reading their status, the window ending and the draw
 * being made at random steps, against the real scripts ({@link ShardStock}, {@link ShardDraws}, {@link ShardPositions})
 * and a plain model of the rules. Within the window a member enters the draw once; after it an entrant is DRAWING until
 * the draw is written, then placed (their place) or left out (FAILED SOLD_OUT); a newcomer is admitted at once while
 * the stock the draw does not hold lasts, with a place behind every place the draw gives and every newcomer before
 * them, and sold out after; a member asking again gets their first answer. At the end the caps sum to the stock with
 * nothing held or in escrow, and every admission is in exactly one queue, its home shard's. The draw is made as the
 * draw job makes it: the sizing, every shard's entrants merged in byte order, {@link DrawRules#draw} with a seed of the
 * test's, then written in.
 */
class ShardDrawModelPropertyTest extends ShardRedisTestBase {

    private static final long HOUR = 3_600_000;

    static LongStream seeds() {
        return LongStream.range(1, 31);
    }

    /** The model: who entered, who was placed where, which newcomers came in which order. */
    private static final class Model {
        final int total;
        final TreeSet<String> entrants = new TreeSet<>();
        final Map<String, Long> newcomers = new LinkedHashMap<>();
        final List<String> newcomerOrder = new ArrayList<>();
        boolean windowOver;
        /** the draw's places held: by the first newcomer after the window, or the draw job */
        boolean sized;

        List<String> placed;

        Model(int total) {
            this.total = total;
        }

        long places() {
            return Math.min(total, entrants.size());
        }

        /** What a shard tells before the sizing: its own entrants times the shard count. */
        long estimate(String member, int shards) {
            int home = StockShards.home(member, shards);
            return shards
                    * entrants.stream()
                            .filter(entrant -> StockShards.home(entrant, shards) == home)
                            .count();
        }

        boolean drawn() {
            return placed != null;
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void shouldAgreeWithTheModelThroughTheWindowTheDrawAndAfter(long seed) {
        Random random = new Random(seed);
        int shards = 2 + random.nextInt(5);
        int total = 1 + random.nextInt(12);
        int pool = total * 2 + 6;
        long coupon = ShardStockTest.newCoupon();
        var positions = new ShardPositions(new LettuceShardRedis(connection.async()), stock);
        long openAt = System.currentTimeMillis() - HOUR;
        stock.deal()
                .init(coupon, shards, total, settings(1, openAt, openAt + 2 * HOUR))
                .block();
        Model model = new Model(total);
        int steps = pool * 3;
        int windowEnds = random.nextInt(steps / 2 + 1);
        int drawMade = windowEnds + 1 + random.nextInt(steps / 2);

        for (int step = 0; step < steps; step++) {
            String because = "seed " + seed + ", step " + step + ", " + total + " over " + shards + " shards";
            if (step == windowEnds) {
                // the window is over: drawAt a second ago, as an operator's change (a newer version) mirrors it
                stock.deal()
                        .init(coupon, shards, total, settings(2, openAt, System.currentTimeMillis() - 1_000))
                        .block();
                model.windowOver = true;
            }
            if (step == drawMade) {
                model.placed = makeDraw(coupon, shards, model, seed, because);
            }
            String member = "d" + seed + "-" + random.nextInt(pool);
            if (random.nextInt(100) < 75) {
                ask(coupon, shards, member, model, because);
            } else {
                read(positions, coupon, shards, member, model, because);
            }
        }
        if (!model.windowOver) {
            stock.deal()
                    .init(coupon, shards, total, settings(2, openAt, System.currentTimeMillis() - 1_000))
                    .block();
            model.windowOver = true;
        }
        if (!model.drawn()) {
            model.placed = makeDraw(coupon, shards, model, seed, "seed " + seed + ", at the end");
        }
        String because = "seed " + seed + ", " + total + " over " + shards + " shards, at the end";
        for (String member : model.entrants) {
            read(positions, coupon, shards, member, model, because);
        }
        for (String member : model.newcomerOrder) {
            read(positions, coupon, shards, member, model, because);
        }
        long caps = 0;
        long queued = 0;
        for (int shard = 0; shard < shards; shard++) {
            String tag = StockShards.tag(coupon, shards, shard);
            Map<String, String> hash = sync.hgetall(StockShards.stock(tag));
            caps += Long.parseLong(hash.get("share")) + Long.parseLong(hash.get("moved"));
            assertThat(hash).as(because).doesNotContainKey("held").containsEntry("drawn", "1");
            assertThat(sync.hlen(StockShards.escrow(tag))).as(because).isZero();
            for (String inQueue : sync.zrange(StockShards.queue(tag), 0, -1)) {
                assertThat(StockShards.home(inQueue, shards)).as(because).isEqualTo(shard);
                queued++;
            }
        }
        assertThat(caps).as(because).isEqualTo(total);
        assertThat(queued).as(because).isEqualTo(model.placed.size() + model.newcomers.size());
    }

    private static ShardDeal.Settings settings(long version, long openAt, long drawAt) {
        return new ShardDeal.Settings(version, openAt, 0, false, 500, 0, "", drawAt, false);
    }

    private static void ask(long coupon, int shards, String member, Model model, String because) {
        ShardStock.Result result = stock.admit(coupon, shards, member).block();
        String as = because + ", " + member + " asks";
        if (!model.windowOver) {
            boolean known = !model.entrants.add(member);
            assertThat(result.outcome())
                    .as(as)
                    .isEqualTo(known ? ShardStock.Outcome.DRAW_ASKED_BEFORE : ShardStock.Outcome.DRAW_ENTERED);
            return;
        }
        if (model.entrants.contains(member)) {
            if (!model.drawn()) {
                assertThat(result.outcome()).as(as).isEqualTo(ShardStock.Outcome.DRAW_ASKED_BEFORE);
                assertThat(result.result()).as(as).isEqualTo("DRAWING");
                if (model.sized) {
                    assertThat(result.detail())
                            .as(as + ": the entrants the sizing froze")
                            .isEqualTo(model.entrants.size());
                    assertThat(result.sequence()).as(as + ": the draw's places").isEqualTo(model.places());
                } else {
                    long estimate = model.estimate(member, shards);
                    assertThat(result.detail()).as(as + ": the estimate").isEqualTo(estimate);
                    assertThat(result.sequence()).as(as).isEqualTo(Math.min(model.total, estimate));
                }
            } else {
                assertThat(result.outcome()).as(as).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
                assertThat(result.result()).as(as).isEqualTo(model.placed.contains(member) ? "" : "F:SOLD_OUT");
            }
            return;
        }
        model.sized = true; // a newcomer after the window sizes the draw before anything else
        Long first = model.newcomers.get(member);
        if (first != null) {
            assertThat(result.outcome()).as(as).isEqualTo(ShardStock.Outcome.ASKED_BEFORE);
            assertThat(result.sequence()).as(as).isEqualTo(first);
        } else if (model.newcomers.size() < model.total - model.places()) {
            assertThat(result.outcome()).as(as).isEqualTo(ShardStock.Outcome.ADMITTED);
            model.newcomers.put(member, result.sequence());
            model.newcomerOrder.add(member);
        } else {
            assertThat(result.outcome()).as(as).isEqualTo(ShardStock.Outcome.SOLD_OUT);
        }
    }

    private static void read(
            ShardPositions positions, long coupon, int shards, String member, Model model, String because) {
        ShardPositions.Standing standing =
                positions.standing(coupon, shards, member).block();
        String as = because + ", " + member + "'s status";
        if (model.entrants.contains(member)) {
            if (!model.drawn()) {
                assertThat(standing.draw()).as(as).isNotNull();
                assertThat(standing.draw().closed()).as(as).isEqualTo(model.windowOver);
                assertThat(standing.draw().entrants())
                        .as(as + ": the entrants, frozen once sized, else an estimate")
                        .isEqualTo(model.sized ? model.entrants.size() : model.estimate(member, shards));
                assertThat(standing.draw().places())
                        .as(as)
                        .isEqualTo(
                                model.sized ? model.places() : Math.min(model.total, model.estimate(member, shards)));
            } else if (model.placed.contains(member)) {
                assertThat(standing.result()).as(as).isEmpty();
                assertThat(standing.place().ahead() + 1).as(as).isEqualTo(model.placed.indexOf(member) + 1);
            } else {
                assertThat(standing.result()).as(as).isEqualTo("F:SOLD_OUT");
            }
        } else if (model.newcomers.containsKey(member)) {
            assertThat(standing.found()).as(as).isTrue();
            assertThat(standing.place().ahead() + 1)
                    .as(as + ": behind every place of the draw and the newcomers before")
                    .isEqualTo(model.places() + model.newcomerOrder.indexOf(member) + 1);
        } else {
            assertThat(standing.found()).as(as).isFalse();
        }
    }

    /** Every shard's stock hash, queue and times, as they are. */
    private static List<Object> shardsAsTheyAre(long coupon, int shards) {
        List<Object> all = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            String tag = StockShards.tag(coupon, shards, shard);
            all.add(sync.hgetall(StockShards.stock(tag)));
            all.add(sync.zrangeWithScores(StockShards.queue(tag), 0, -1));
            all.add(sync.zrangeWithScores(StockShards.times(tag), 0, -1));
            all.add(sync.hgetall(StockShards.escrow(tag)));
        }
        return all;
    }

    /** As the draw job: sized, every shard's entrants merged, drawn with the test's seed, written in. */
    private static List<String> makeDraw(long coupon, int shards, Model model, long seed, String because) {
        ShardDraws.Sized sized = stock.draws().size(coupon, shards).block();
        model.sized = true;
        assertThat(sized.entrants()).as(because).isEqualTo(model.entrants.size());
        assertThat(sized.places()).as(because).isEqualTo(model.places());
        List<String> entrants = new ArrayList<>();
        for (int shard = 0; shard < shards; shard++) {
            entrants.addAll(sync.zrange(StockShards.draw(StockShards.tag(coupon, shards, shard)), 0, -1));
        }
        entrants.sort(String::compareTo); // the ids are ASCII: their byte order
        assertThat(entrants).as(because).containsExactlyElementsOf(model.entrants);
        byte[] drawSeed = new byte[32];
        new Random(seed).nextBytes(drawSeed); // the run's seed decides the draw too: a failing run replays
        List<String> placed = DrawRules.draw(drawSeed, entrants, sized.places()).placed();
        long drawAt = Long.parseLong(sync.hget(StockShards.stock(StockShards.tag(coupon, shards, 0)), "drawAt"));
        stock.draws().write(coupon, shards, sized, placed, drawAt).block();
        // written twice, as by an instance that died after writing and the next pass: nothing changes
        List<Object> written = shardsAsTheyAre(coupon, shards);
        stock.draws().write(coupon, shards, sized, placed, drawAt).block();
        assertThat(shardsAsTheyAre(coupon, shards))
                .as(because + ": written again")
                .isEqualTo(written);
        return placed;
    }
}
