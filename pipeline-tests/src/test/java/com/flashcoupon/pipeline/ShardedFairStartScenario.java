package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.contract.StockShards;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * A fair start across stock shards end to end (docs/architecture.md, "A fair start across shards"): a crowd enters the
 * window on every shard, the window ends (the event's times moved an hour back in MySQL, then mirrored as an
 * operator's change is: nothing waits for a clock), newcomers arrive while the api's own draw job makes the draw, and
 * the worker issues exactly the stock: every entrant the draw placed first, in the order of the places whatever their
 * home shard, the newcomers after them, and no stock left, held or in escrow on any shard.
 */
final class ShardedFairStartScenario {

    private final Stack stack;
    private final Function<String, Map<String, String>> hashes;
    private final int drainBatch;

    /**
     * {@code hashes}: a hash as the event's Redis holds it (a cluster's, when the stack runs on one); {@code
     * drainBatch}: the stack's drain batch, the order check's bound.
     */
    ShardedFairStartScenario(Stack stack, Function<String, Map<String, String>> hashes, int drainBatch) {
        this.stack = stack;
        this.hashes = hashes;
        this.drainBatch = drainBatch;
    }

    void run(int shards, int total, int entrantCount, int newcomerCount) {
        Map<?, ?> created = Stack.createCoupon(
                stack.http(),
                Map.of(
                        "name",
                        "Fair start over " + shards + " shards",
                        "totalQuantity",
                        total,
                        "openAt",
                        Instant.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                        "issueRatePerSecond",
                        2_000,
                        "queueing",
                        "RANDOMIZED_START",
                        "queueingWindowSeconds",
                        3600,
                        "stockShards",
                        shards));
        long couponId = ((Number) created.get("id")).longValue();
        List<String> entrants = Crowd.members("fair-" + couponId, entrantCount);
        List<Crowd.Answer> entered = Crowd.ask(stack.apiUrl(), couponId, entrants, 0, 32);
        assertThat(Crowd.countByStatus(entered))
                .as("every entrant is in the draw; no answer: %s", Crowd.noAnswers(entered))
                .containsOnlyKeys(202);
        Map<?, ?> draw = (Map<?, ?>) stack.adminView(couponId).get("draw");
        assertThat(draw.get("entrants")).as("entrants counted over every shard").isEqualTo(entrantCount);

        Stack.endWindow(stack.jdbc, stack.http(), couponId, 2_000);
        List<String> newcomers = Crowd.members("late-" + couponId, newcomerCount);
        List<Crowd.Answer> late = Crowd.ask(stack.apiUrl(), couponId, newcomers, 0, 32);
        long places = Math.min(total, entrantCount);
        long admittedLate = Math.max(0, total - places);
        Map<Integer, Long> lateStatuses = Crowd.countByStatus(late);
        long lateAdmitted = Math.min(admittedLate, newcomerCount);
        Map<Integer, Long> expected = new java.util.HashMap<>();
        if (lateAdmitted > 0) {
            expected.put(202, lateAdmitted);
        }
        if (newcomerCount > lateAdmitted) {
            expected.put(409, newcomerCount - lateAdmitted);
        }
        assertThat(lateStatuses)
                .as(
                        "newcomers admitted from what the draw does not hold, the others sold out; no answer: %s",
                        Crowd.noAnswers(late))
                .isEqualTo(expected);
        Set<String> accepted = new HashSet<>();
        late.stream().filter(answer -> answer.status() == 202).forEach(answer -> accepted.add(answer.memberId()));

        await().atMost(Duration.ofSeconds(120))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> stack.walletCount(couponId) + stack.failureCount(couponId)
                        >= Math.min(total, entrantCount + newcomerCount));
        List<String> placed = stack.jdbc
                .sql("SELECT member_id FROM coupon_draw_entrant WHERE coupon_id = ? AND place IS NOT NULL"
                        + " ORDER BY place")
                .param(couponId)
                .query(String.class)
                .list();
        assertThat(placed).hasSize((int) places);
        accepted.addAll(placed);
        Invariants.check(stack.jdbc, couponId, accepted, drainBatch);
        assertThat(stack.walletCount(couponId)).isEqualTo(Math.min(total, entrantCount + newcomerCount));

        // the draw's places first, in their order across the shards; then the newcomers
        Map<String, Long> sequences = stack
                .jdbc
                .sql("SELECT member_id, request_seq FROM coupon_wallet WHERE coupon_id = ?")
                .param(couponId)
                .query((rs, row) -> Map.entry(rs.getString(1), rs.getLong(2)))
                .list()
                .stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
        for (int place = 1; place <= placed.size(); place++) {
            assertThat(sequences.get(placed.get(place - 1)))
                    .as("place %d issued %d-th", place, place)
                    .isEqualTo(place);
        }
        assertThat(newcomers.stream().filter(sequences::containsKey).map(sequences::get))
                .allSatisfy(sequence -> assertThat(sequence).isGreaterThan(places));

        // every shard: nothing held for the draw, nothing in escrow, its cap all taken when the stock is
        long caps = 0;
        for (int shard = 0; shard < shards; shard++) {
            String tag = StockShards.tag(couponId, shards, shard);
            Map<String, String> stock = hashes.apply(StockShards.stock(tag));
            assertThat(stock).as("shard %d", shard).doesNotContainKey("held").containsEntry("drawn", "1");
            assertThat(hashes.apply(StockShards.escrow(tag))).isEmpty();
            caps += Long.parseLong(stock.get("share")) + Long.parseLong(stock.get("moved"));
        }
        assertThat(caps).as("the caps sum to the stock").isEqualTo(total);
    }
}
