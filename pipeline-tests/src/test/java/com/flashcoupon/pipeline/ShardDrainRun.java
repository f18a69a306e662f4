package com.flashcoupon.pipeline;

import com.flashcoupon.api.shard.ShardOrder;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * One run of a crowd over K shards with a drainer publishing at the same time (as {@link ShardOrder} is meant to be
 * used), and what it measured: on one Redis (ShardOrderTest) and on a cluster (ShardStockClusterTest).
 */
final class ShardDrainRun {

    /**
     * @param published admissions published (each once, or the run fails)
     * @param timeInversions consecutive publications whose admission times go back
     * @param worstInversionMillis the most by which a member was asked after another's admission was answered, yet
     *     published before it (0 or less: never)
     * @param positionsWrong members whose {@link ShardPositions#ahead} is not their place in the publication order
     */
    record Figures(int published, int timeInversions, double worstInversionMillis, int positionsWrong) {}

    private ShardDrainRun() {}

    static Figures run(ShardStock.Redis redis, long coupon, int shards, int total, int crowd) {
        var stock = new ShardStock(redis);
        var order = new ShardOrder(redis, stock);
        stock.deal().init(coupon, shards, total).block();
        Map<String, long[]> asked = new ConcurrentHashMap<>(); // member -> {sent, answered} (System.nanoTime)
        Map<String, ShardStock.Result> admitted = new ConcurrentHashMap<>();
        AtomicBoolean admitting = new AtomicBoolean(true);
        List<ShardOrder.Entry> published = new ArrayList<>();

        Mono<Void> drainer = Mono.defer(() -> order.next(coupon, shards, 100)
                        .flatMap(batch -> order.advance(coupon, shards, batch).thenReturn(batch)))
                .doOnNext(batch -> published.addAll(batch.entries()))
                .repeat(() -> admitting.get() || published.size() < admitted.size())
                .then()
                .subscribeOn(Schedulers.single());
        Mono<Void> members = Flux.fromIterable(IntStream.range(0, crowd)
                        .mapToObj(i -> "d-" + i + "-" + UUID.randomUUID())
                        .toList())
                .flatMap(
                        member -> Mono.defer(() -> {
                            long sent = System.nanoTime();
                            return stock.admit(coupon, shards, member).doOnNext(result -> {
                                asked.put(member, new long[] {sent, System.nanoTime()});
                                if (result.outcome() == ShardStock.Outcome.ADMITTED) {
                                    admitted.put(member, result);
                                }
                            });
                        }),
                        32)
                .then()
                .doFinally(signal -> admitting.set(false));
        Mono.when(members, drainer).block();

        Set<String> seen = new HashSet<>();
        published.forEach(entry -> {
            if (!seen.add(entry.member())) {
                throw new AssertionError("published twice: " + entry);
            }
            if (!admitted.containsKey(entry.member())) {
                throw new AssertionError("published, never admitted: " + entry);
            }
        });
        int timeInversions = 0;
        long latestSent = Long.MIN_VALUE;
        long worst = Long.MIN_VALUE;
        for (int i = 0; i < published.size(); i++) {
            ShardOrder.Entry entry = published.get(i);
            if (i > 0 && entry.time() < published.get(i - 1).time()) {
                timeInversions++;
            }
            long[] times = asked.get(entry.member());
            if (i > 0) {
                worst = Math.max(worst, latestSent - times[1]);
            }
            latestSent = Math.max(latestSent, times[0]);
        }
        var positions = new ShardPositions(redis, stock);
        Map<String, Integer> place = new HashMap<>();
        for (int i = 0; i < published.size(); i++) {
            place.put(published.get(i).member(), i);
        }
        int wrong = 0;
        for (int i = 0; i < published.size(); i += Math.max(1, published.size() / 50)) {
            ShardOrder.Entry entry = published.get(i);
            long ahead =
                    positions.ahead(coupon, shards, entry.shard(), entry.time()).block();
            if (ahead != place.get(entry.member())) {
                wrong++;
            }
        }
        return new Figures(published.size(), timeInversions, worst / 1e6, wrong);
    }
}
