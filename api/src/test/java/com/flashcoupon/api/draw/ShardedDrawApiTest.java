package com.flashcoupon.api.draw;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.MemberStream;
import com.flashcoupon.contract.StockShards;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.test.context.TestPropertySource;

/**
 * A fair start across stock shards, through the whole api (docs/architecture.md, "A fair start across shards"): the
 * window's entrants kept on their home shards and counted over all of them, one draw over every entrant, its places
 * held on the shards at the close (newcomers admitted at once from the rest, behind every place), the placed members
 * written to their home shards in the order of their places with the held stock moved there, and the caps still summing
 * to the stock. Windows end as in {@link DrawApiTest} (the event's times moved an hour back) and the draw job runs when
 * a test means the draw to be made. Function 1 (over member ids) so that the test recomputes the draw from the seed.
 */
@ApiTest
@TestPropertySource(
        properties = {"coupon.draw.check-every=1h", "coupon.draw.function-version=1", "coupon.shards.max-served=6"})
class ShardedDrawApiTest extends FairStartTestBase {

    private static final int SHARDS = 3;

    @Value("${local.server.port}")
    int port;

    /** Two entrants at home on each shard, and more: {@code count} in all, ids in no particular byte order. */
    private static List<String> entrants(int count) {
        List<String> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            members.add(homedAt(SHARDS, i % SHARDS));
        }
        return members;
    }

    @Test
    void shouldDrawOnceOverEveryShardsEntrantsAndPlaceThemAtHome() {
        long id = fairStart(5, SHARDS);
        List<String> members = entrants(12);
        for (String member : members) {
            Map<String, Object> answer = ask(id, member, 202);
            assertThat(answer).containsEntry("status", "WAITING").containsEntry("position", null);
            assertThat(draw(answer)).containsEntry("state", "OPEN");
        }
        assertThat(draw(ask(id, members.getFirst(), 200))).containsEntry("state", "OPEN");
        // read on every member's home shard, shard 0's too (its keys are the event's own, where the meta's draw is)
        for (int shard = 0; shard < SHARDS; shard++) {
            assertThat(draw(status(id, members.get(shard))))
                    .as("the status of an entrant at home on shard %d", shard)
                    .containsEntry("state", "OPEN")
                    .containsEntry("entrants", 12)
                    .containsEntry("places", 5);
        }
        assertThat(draw(admin(id)))
                .as("the admin view counts every shard's entrants")
                .containsEntry("entrants", 12)
                .containsEntry("places", 5);

        endWindow(id);
        // every place is held for the draw: a newcomer finds none, on any shard
        for (int shard = 0; shard < SHARDS; shard++) {
            assertThat(ask(id, homedAt(SHARDS, shard), 409)).containsEntry("code", "SOLD_OUT");
        }
        Map<String, Object> drawing = ask(id, members.get(2), 200);
        assertThat(draw(drawing))
                .containsEntry("state", "DRAWING")
                .containsEntry("entrants", 12)
                .containsEntry("places", 5);
        for (int shard = 0; shard < SHARDS; shard++) {
            assertThat(draw(status(id, members.get(shard))))
                    .containsEntry("state", "DRAWING")
                    .containsEntry("entrants", 12);
        }
        assertThat(placedOnShards(id, SHARDS))
                .as("nobody placed before the draw")
                .isZero();

        Map<String, Object> made = awaitMade(id);
        assertThat(made).containsEntry("entrants", 12).containsEntry("placed", 5);
        byte[] seed = HexFormat.of().parseHex((String) made.get("seed"));
        List<String> placed =
                DrawRules.draw(seed, members.stream().sorted().toList(), 5).placed();
        for (String member : members) {
            int place = placed.indexOf(member) + 1;
            if (place > 0) {
                assertThat(status(id, member))
                        .as("%s, placed %d", member, place)
                        .containsEntry("status", "WAITING")
                        .containsEntry("position", place);
                assertThat(ask(id, member, 200)).containsEntry("position", place);
                String tag = StockShards.tag(id, SHARDS, StockShards.home(member, SHARDS));
                assertThat(redis.opsForZSet().score(StockShards.times(tag), member))
                        .as("placed before drawAt, in the order of the places")
                        .isNotNull();
            } else {
                assertThat(status(id, member))
                        .as("%s, left out", member)
                        .containsEntry("status", "FAILED")
                        .containsEntry("failureReason", "SOLD_OUT");
                assertThat(ask(id, member, 200)).containsEntry("status", "FAILED");
            }
        }
        assertThat(placedOnShards(id, SHARDS)).isEqualTo(5);
        assertThat(timesInPlaceOrder(id, placed)).isSorted();
        assertStockSumsTo(id, 5);
        assertThat(ask(id, homedAt(SHARDS, 1), 409)).containsEntry("code", "SOLD_OUT");
    }

    @Test
    void shouldAdmitNewcomersAtOnceBehindEveryPlaceTheDrawGives() {
        long id = fairStart(20, SHARDS);
        List<String> members = entrants(6);
        members.forEach(member -> ask(id, member, 202));
        endWindow(id);

        // the first newcomer sizes the draw: its six places held on the shards, the newcomer behind them
        String first = homedAt(SHARDS, 2);
        Map<String, Object> late = ask(id, first, 202);
        assertThat(late).containsEntry("position", 7).doesNotContainKey("draw");
        String second = homedAt(SHARDS, 0);
        assertThat(ask(id, second, 202)).containsEntry("position", 8);
        assertThat(draw(ask(id, members.getFirst(), 200))).containsEntry("state", "DRAWING");

        awaitMade(id);
        assertThat(members.stream().map(member -> status(id, member).get("position")))
                .containsExactlyInAnyOrder(1, 2, 3, 4, 5, 6);
        assertThat(status(id, first)).containsEntry("position", 7);
        assertThat(status(id, second)).containsEntry("position", 8);
        assertThat(ask(id, homedAt(SHARDS, 1), 202)).containsEntry("position", 9);
        assertThat(placedOnShards(id, SHARDS)).isEqualTo(9);
        assertStockSumsTo(id, 20);
    }

    @Test
    void shouldStreamTheOddsOverEveryShardThenEachEntrantsOutcome() {
        long id = fairStart(2, SHARDS);
        List<String> members = entrants(6);
        members.forEach(member -> ask(id, member, 202));
        List<MemberStream> streams = members.stream()
                .map(member -> MemberStream.open(port, id, member))
                .toList();
        try {
            await().atMost(Duration.ofSeconds(15))
                    .until(() -> streams.stream()
                            .allMatch(stream -> !stream.statuses().isEmpty()));
            assertThat(streams)
                    .as("every stream counts the entrants of every shard, shard 0's members' too")
                    .allSatisfy(stream -> assertThat(draw(stream.statuses().getLast()))
                            .containsEntry("entrants", 6)
                            .containsEntry("places", 2));

            endWindow(id);
            Map<String, Object> made = awaitMade(id);
            byte[] seed = HexFormat.of().parseHex((String) made.get("seed"));
            List<String> placed =
                    DrawRules.draw(seed, members.stream().sorted().toList(), 2).placed();
            for (int i = 0; i < members.size(); i++) {
                MemberStream stream = streams.get(i);
                int place = placed.indexOf(members.get(i)) + 1;
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> stream.statuses().stream()
                                .anyMatch(status ->
                                        !"WAITING".equals(status.get("status")) || status.get("position") != null));
                Map<String, Object> outcome = stream.statuses().getLast();
                if (place > 0) {
                    assertThat(outcome)
                            .as("%s, placed %d", members.get(i), place)
                            .containsEntry("position", place);
                } else {
                    assertThat(outcome)
                            .as("%s, left out", members.get(i))
                            .containsEntry("status", "FAILED")
                            .containsEntry("failureReason", "SOLD_OUT");
                }
            }
        } finally {
            streams.forEach(MemberStream::close);
        }
    }

    /** Each placed member's admission time on their home shard, in the order of their places. */
    private List<Double> timesInPlaceOrder(long id, List<String> placed) {
        return placed.stream()
                .map(member -> redis.opsForZSet()
                        .score(
                                StockShards.times(StockShards.tag(id, SHARDS, StockShards.home(member, SHARDS))),
                                member))
                .toList();
    }

    /** The shards' caps sum to the stock, nothing is held any more and nothing is in escrow. */
    private void assertStockSumsTo(long id, long total) {
        long caps = 0;
        for (int shard = 0; shard < SHARDS; shard++) {
            String tag = StockShards.tag(id, SHARDS, shard);
            List<Object> stock = redis.opsForHash().multiGet(StockShards.stock(tag), List.of("share", "moved", "held"));
            caps += Long.parseLong((String) stock.get(0)) + Long.parseLong((String) stock.get(1));
            assertThat(stock.get(2))
                    .as("shard %d holds nothing for the draw once it is made", shard)
                    .isNull();
            assertThat(redis.opsForHash().size(StockShards.escrow(tag))).isZero();
        }
        assertThat(caps).isEqualTo(total);
    }
}
