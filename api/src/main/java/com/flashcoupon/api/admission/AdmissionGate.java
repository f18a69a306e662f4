package com.flashcoupon.api.admission;

import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import java.time.Clock;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.domain.Range;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Cheap refusals: once Redis answered that a coupon is not open yet, closed or sold out, this instance answers the
 * same for a second without asking Redis again, so a crowd hammering a finished event costs no Redis round trips.
 * Redis still decides every admission that could succeed, and every retry of a member already in the queue: for a
 * sold-out coupon the queue is final, so its members are loaded once, {@link #PAGE_SIZE} at a time, and their retries
 * still get their 200.
 */
@Component
class AdmissionGate {

    private static final Logger log = LoggerFactory.getLogger(AdmissionGate.class);

    /** How long a refusal learned from Redis is answered locally: changes reach every instance within it. */
    static final long VALID_MILLIS = 1_000;

    /** Sold-out queues larger than this are not held in memory; their refusals keep asking Redis. */
    static final int MAX_MEMBERS_HELD = 500_000;

    /**
     * Members read per {@code ZRANGE} when a sold-out queue is loaded: each page is one short command on the shared
     * connection, so admissions and drains keep their turn between pages instead of waiting behind one huge reply.
     */
    static final int PAGE_SIZE = 10_000;

    /** A refusal not renewed for this long (nobody asked Redis about the coupon) is forgotten, its queue too. */
    static final long IDLE_MILLIS = 60_000;

    /** Marks a sold-out queue being loaded: until it is here, Redis keeps deciding. */
    private static final String LOADING = "\0loading-";

    /** Numbers each load's own marker: a load that ended stale can never take a newer load's marker for its own. */
    private final java.util.concurrent.atomic.AtomicLong loads = new java.util.concurrent.atomic.AtomicLong();

    /** Marks a sold-out queue over {@link #MAX_MEMBERS_HELD}: not loaded (nor asked about again), Redis decides. */
    private static final Set<String> TOO_BIG = marker("too-big");

    /**
     * Marks a sold-out event some of whose admissions Redis knows only as a count (a restore's base: published before
     * Redis lost them, not decided in MySQL then): the worker puts each such member back into a queue when it decides
     * them, after any load, so no set of members is final yet and Redis decides. Dropped each second
     * ({@link #flushRefusalCounts}): the next sell-out tries again.
     */
    private static final Set<String> UNSETTLED = marker("unsettled");

    /**
     * A marker unequal to every other set (the map's {@code replace} and {@code remove} compare by {@code equals}, and
     * two empty sets are equal): one element no member id has (a NUL character).
     */
    private static Set<String> marker(String name) {
        return Set.of("\0" + name);
    }

    /** Whether this is a load's marker (a sold-out queue being loaded: Redis keeps deciding until it is in). */
    private static boolean loading(Set<String> queue) {
        return queue.size() == 1 && queue.iterator().next().startsWith(LOADING);
    }

    private static final RedisScript<Long> COUNT_REFUSALS =
            RedisScript.of(LuaScripts.text("scripts/count_refusals.lua"), Long.class);

    private record Known(Admission.Outcome outcome, long openAt, long until) {}

    private final Map<Long, Known> known = new ConcurrentHashMap<>();
    private final Map<Long, Set<String>> soldOutQueues = new ConcurrentHashMap<>();
    private final Map<Long, LongAdder> soldOutRefusals = new ConcurrentHashMap<>();
    private final ReactiveStringRedisTemplate redis;
    private final Clock clock;

    AdmissionGate(ReactiveStringRedisTemplate redis, Clock clock) {
        this.redis = redis;
        this.clock = clock;
    }

    /** The refusal to answer without Redis, if this instance knows one for certain. */
    Optional<Admission.Outcome> localRefusal(long couponId, String memberId) {
        Known refusal = known.get(couponId);
        long now = clock.millis();
        if (refusal == null || now >= refusal.until()) {
            return Optional.empty();
        }
        return switch (refusal.outcome()) {
            case NOT_OPEN_YET -> now < refusal.openAt() ? Optional.of(refusal.outcome()) : Optional.empty();
            case CLOSED -> Optional.of(refusal.outcome());
            case SOLD_OUT -> {
                Set<String> queue = soldOutQueues.get(couponId);
                if (queue == null
                        || loading(queue)
                        || queue == TOO_BIG
                        || queue == UNSETTLED
                        || queue.contains(memberId)) {
                    yield Optional.empty();
                }
                soldOutRefusals.computeIfAbsent(couponId, id -> new LongAdder()).increment();
                yield Optional.of(refusal.outcome());
            }
            default -> Optional.empty();
        };
    }

    /**
     * Remembers what Redis answered, when it is a refusal. A new admission (or a coupon Redis had lost) means the queue
     * can grow again, after a Redis restored from MySQL with stock left: what this instance holds of it is dropped.
     */
    void learn(long couponId, Admission admission) {
        learn(couponId, admission, 1);
    }

    /** As above, for an event of {@code shards} stock shards: a sold-out one holds every shard's queue. */
    void learn(long couponId, Admission admission, int shards) {
        Admission.Outcome outcome = admission.outcome();
        switch (outcome) {
            case ADMITTED, MIRROR_MISSING -> {
                if (soldOutQueues.remove(couponId) != null) {
                    known.computeIfPresent(
                            couponId,
                            (id, refusal) -> refusal.outcome() == Admission.Outcome.SOLD_OUT ? null : refusal);
                }
            }
            case NOT_OPEN_YET, CLOSED, SOLD_OUT -> {
                known.put(couponId, new Known(outcome, admission.sequence(), clock.millis() + VALID_MILLIS));
                if (outcome == Admission.Outcome.SOLD_OUT && soldOutQueues.get(couponId) == null) {
                    loadQueue(couponId, shards);
                }
            }
            case ALREADY_ASKED, RATE_LIMITED, DRAW_ENTERED, DRAW_ASKED_BEFORE, NOT_ANNOUNCED, GATE_REFUSED -> {}
        }
    }

    /**
     * Loads the members a sold-out coupon still answers 200: its queue, the members of its draw (a RANDOMIZED_START
     * event's, told their outcome when they ask again) and the members with a result; for an event of more than one
     * stock shard, every shard's queue and results (sold out is said only once every shard is out, so no queue grows
     * any more) and draws (a fair start's, on every shard). Not while some admissions are known only as a count after
     * a Redis loss ({@link #UNSETTLED}).
     */
    private void loadQueue(long couponId, int shards) {
        Set<String> loading = marker(LOADING.substring(1) + loads.incrementAndGet());
        if (soldOutQueues.putIfAbsent(couponId, loading) != null) {
            return;
        }
        List<String> keys = shards <= 1
                ? List.of(CouponKeys.queue(couponId), CouponKeys.draw(couponId))
                : java.util.stream.IntStream.range(0, shards)
                        .boxed()
                        .flatMap(shard -> {
                            String tag = StockShards.tag(couponId, shards, shard);
                            return java.util.stream.Stream.of(StockShards.queue(tag), StockShards.draw(tag));
                        })
                        .toList();
        // and the members with a result: after a restore, one the worker recorded but could not place in the queue
        // (MySQL's published count lagged behind Kafka's) is answered with it, never refused as sold out
        List<String> results = shards <= 1
                ? List.of(CouponKeys.result(couponId))
                : java.util.stream.IntStream.range(0, shards)
                        .mapToObj(shard -> StockShards.result(StockShards.tag(couponId, shards, shard)))
                        .toList();
        // members a restore's base still counts come back into a queue as the worker decides them: no set is final
        unsettled(couponId, shards)
                .filter(count -> {
                    if (count > 0) {
                        soldOutQueues.replace(couponId, loading, UNSETTLED);
                    }
                    return count <= 0;
                })
                .flatMap(settled -> Flux.fromIterable(keys)
                        .concatMap(key -> redis.opsForZSet().size(key))
                        .concatWith(Flux.fromIterable(results)
                                .concatMap(key -> redis.opsForHash().size(key)))
                        .collectList())
                .flatMapMany(sizes -> {
                    if (sizes.stream().mapToLong(Long::longValue).sum() > MAX_MEMBERS_HELD) {
                        soldOutQueues.replace(couponId, loading, TOO_BIG);
                        return Flux.empty();
                    }
                    // a sold-out queue no longer grows, nor a drawn draw, so pages by rank are stable (an admission
                    // after a restore drops the LOADING marker, and this load with it)
                    return Flux.range(0, keys.size())
                            .concatMap(k -> pages(keys.get(k), sizes.get(k)))
                            .concatWith(Flux.fromIterable(results)
                                    .concatMap(key ->
                                            redis.<String, String>opsForHash().keys(key)));
                })
                .collect(() -> ConcurrentHashMap.<String>newKeySet(), Set::add)
                .subscribe(
                        members -> {
                            // only if still loading: a new admission meanwhile dropped the marker, this set is stale
                            if (members.isEmpty()) {
                                soldOutQueues.remove(couponId, loading);
                            } else if (soldOutQueues.replace(couponId, loading, Collections.unmodifiableSet(members))) {
                                log.info(
                                        "coupon {} is sold out: {} admitted members held to refuse others locally",
                                        couponId,
                                        members.size());
                            }
                        },
                        error -> {
                            log.warn(
                                    "coupon {}: its sold-out members could not be read; Redis decides",
                                    couponId,
                                    error);
                            soldOutQueues.remove(couponId, loading);
                        });
    }

    /** Whether the last sell-out of the coupon found it {@link #UNSETTLED} (Redis decides until the next one). */
    boolean isUnsettled(long couponId) {
        return soldOutQueues.get(couponId) == UNSETTLED;
    }

    /**
     * How many of the event's admissions Redis knows only as a count: the meta's base, less (for an event of several
     * stock shards) the members of it that came back into a shard's queue or hold a second place there
     * (shard_results.lua's 'back' and 'again').
     */
    private Mono<Long> unsettled(long couponId, int shards) {
        Mono<Long> base = redis.<String, String>opsForHash()
                .get(CouponKeys.meta(couponId), "base")
                .map(Long::parseLong)
                .defaultIfEmpty(0L);
        if (shards <= 1) {
            return base;
        }
        return base.flatMap(count -> count == 0
                ? Mono.just(0L)
                : Flux.range(0, shards)
                        .concatMap(shard -> redis.<String, String>opsForHash()
                                .multiGet(
                                        StockShards.stock(StockShards.tag(couponId, shards, shard)),
                                        List.of("back", "again")))
                        // a field the shard does not have is a null in the list (never one in a Flux)
                        .map(values -> values.stream()
                                .filter(java.util.Objects::nonNull)
                                .mapToLong(Long::parseLong)
                                .sum())
                        .reduce(count, (left, counted) -> left - counted)
                        .map(left -> Math.max(0, left)));
    }

    private Flux<String> pages(String key, long size) {
        return Flux.range(0, (int) ((size + PAGE_SIZE - 1) / PAGE_SIZE))
                .concatMap(page -> redis.opsForZSet()
                        .range(key, Range.closed((long) page * PAGE_SIZE, (long) page * PAGE_SIZE + PAGE_SIZE - 1)));
    }

    /**
     * Local sold-out refusals still show in the coupon's {@code rejectedSoldOut} counter, a second late at most; what
     * is known of a coupon nobody asked about for {@link #IDLE_MILLIS} is dropped, so the members of past events are
     * not held for the life of the process.
     */
    @Scheduled(fixedDelay = 1_000)
    void flushRefusalCounts() {
        long now = clock.millis();
        // an unsettled event is looked at again at its next sell-out
        soldOutQueues.values().removeIf(queue -> queue == UNSETTLED);
        known.forEach((couponId, refusal) -> {
            if (now >= refusal.until() + IDLE_MILLIS && known.remove(couponId, refusal)) {
                soldOutQueues.computeIfPresent(couponId, (id, queue) -> loading(queue) ? queue : null);
                // nothing refuses locally without a known refusal, so a zero count stays zero
                soldOutRefusals.computeIfPresent(couponId, (id, adder) -> adder.sum() == 0 ? null : adder);
            }
        });
        soldOutRefusals.forEach((couponId, adder) -> {
            long count = adder.sumThenReset();
            if (count > 0) {
                redis.execute(
                                COUNT_REFUSALS,
                                List.of(CouponKeys.meta(couponId), CouponKeys.stats(couponId)),
                                List.of(Long.toString(count)))
                        .doOnError(error -> adder.add(count))
                        .onErrorComplete()
                        .subscribe();
            }
        });
    }
}
