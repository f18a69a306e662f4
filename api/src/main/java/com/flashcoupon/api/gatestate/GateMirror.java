package com.flashcoupon.api.gatestate;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import com.flashcoupon.contract.StockShards;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Brings an event's gate into Redis for the mirror (CouponMirror): the settings as mirror.lua's ARGV[14], the counts
 * saved in MySQL ({@link GateCounts}), and the eligibility list, loaded from MySQL whenever Redis does not hold the
 * current upload (after an upload, and after a Redis loss, before the meta exists again: admission never runs on a
 * half list). A retired event's gate never goes back into Redis. An event of K &gt; 1 stock shards keeps its list split
 * by the members' home shards, each part in its shard's slot, where the shard's admissions check it; each part records
 * the generation and the count it was loaded for, so a count changed before the event opens loads the list again.
 *
 * <p>One load per event at a time, across instances: the loader holds {@code {cpn:ID}:eligible:loading} (renewed page
 * by page, so a loader that died gives way within {@link #LOCK_TTL}); every other caller (a crowd's admissions after a
 * Redis loss, status reads, the draw job) waits for it, and on one instance they share one wait. A load fills a set of
 * its own, page by page, and replaces the list in one step at its end; a loader that died leaves a set that expires.
 */
@Component
public class GateMirror {

    private static final Logger log = LoggerFactory.getLogger(GateMirror.class);

    /** Members per MySQL read and per SADD. */
    static final int PAGE_SIZE = 5_000;

    /** How long a load's own set lives without a page written. */
    private static final Duration LOAD_TTL = Duration.ofSeconds(60);

    /** How long the loader's lock lasts without a page written. */
    private static final Duration LOCK_TTL = Duration.ofSeconds(30);

    /** How often a caller waiting for another's load looks at its lock. */
    private static final Duration LOCK_POLL = Duration.ofMillis(50);

    /** How long an operator's change waits for another caller's load (a member's request passes its own wait). */
    public static final Duration OPERATOR_WAIT = Duration.ofSeconds(20);

    /** The list (or a shard's part) held: 1, or 2 when the event retired (nothing more to load); else 0, load it. */
    private static final RedisScript<Long> HELD =
            RedisScript.of(LuaScripts.text("scripts/eligible_held.lua"), Long.class);

    private static final RedisScript<Long> FINISH =
            RedisScript.of(LuaScripts.text("scripts/eligible_finish.lua"), Long.class);

    private static final RedisScript<Long> RENEW =
            RedisScript.of(LuaScripts.text("scripts/drain_renew.lua"), Long.class);
    private static final RedisScript<Long> RELEASE =
            RedisScript.of(LuaScripts.text("scripts/release_lock.lua"), Long.class);

    /** This instance's one load of, or wait for, each event's list: every caller here shares it. */
    private final Map<Long, Mono<Void>> loading = new ConcurrentHashMap<>();

    private final ReactiveStringRedisTemplate redis;
    private final GateRepository gates;
    private final GateCounts counts;
    private final BlockingIo blocking;
    private final Counter loads;

    GateMirror(
            ReactiveStringRedisTemplate redis,
            GateRepository gates,
            GateCounts counts,
            BlockingIo blocking,
            MeterRegistry meters) {
        this.redis = redis;
        this.gates = gates;
        this.counts = counts;
        this.blocking = blocking;
        this.loads = Counter.builder("coupon.gate.list.loads")
                .description("Eligibility lists this instance loaded from MySQL into Redis (after an upload or a loss)")
                .register(meters);
    }

    /**
     * mirror.lua's ARGV[14] for the event, once Redis holds its current list (for an event of {@code shards} stock
     * shards, each shard its part) and the gate's saved counts. Waits up to {@code wait} for another caller's load of
     * the list, then fails with 503 (nothing decided; ask again shortly).
     */
    public Mono<String> prepare(long couponId, int shards, Duration wait) {
        return blocking.call(() -> gates.findForMirror(couponId)).flatMap(found -> {
            if (found.isEmpty()) {
                return Mono.just(GateSettings.NONE.mirrorArg(0));
            }
            GateRepository.Stored stored = found.get().stored();
            String arg = stored.settings().mirrorArg(stored.listCount());
            if (found.get().retired()) {
                return Mono.just(arg); // nothing of a retired event goes back into Redis (mirror.lua writes nothing)
            }
            return ensureList(couponId, shards, stored.listGeneration(), stored.listCount())
                    .timeout(wait, Mono.error(() -> ApiException.restoring(couponId)))
                    .then(counts.restore(couponId, shards, found.get().saved()))
                    .thenReturn(arg);
        });
    }

    /**
     * The hash tags the list is kept under: the event's own for one shard (the whole list), each shard's for more
     * (each member in their home shard's part, {@link StockShards#home}), where the shard's admissions read it.
     */
    private static List<String> tags(long couponId, int shards) {
        List<String> tags = new ArrayList<>(shards);
        for (int shard = 0; shard < shards; shard++) {
            tags.add(StockShards.tag(couponId, shards, shard));
        }
        return tags;
    }

    /**
     * Completes once Redis holds the list's {@code generation} (or a later one) for the count, on every shard, or the
     * event retired in Redis.
     */
    private Mono<Void> ensureList(long couponId, int shards, long generation, long listCount) {
        if (generation == 0) {
            return Mono.empty();
        }
        return Flux.fromIterable(tags(couponId, shards))
                .concatMap(tag -> redis.execute(
                                HELD,
                                List.of(
                                        StockShards.eligibleVersion(tag),
                                        StockShards.eligible(tag),
                                        StockShards.retired(tag)),
                                List.of(Long.toString(generation), Long.toString(listCount), Integer.toString(shards)))
                        .next())
                .collectList()
                .flatMap(held -> held.contains(2L) || !held.contains(0L)
                        ? Mono.empty()
                        // loaded or waited for, then looked at again: the load may have been of an older upload
                        : shared(couponId, shards)
                                .then(Mono.defer(() -> ensureList(couponId, shards, generation, listCount))));
    }

    /**
     * This instance's one load of (or wait for) the event's list, shared by every caller here until it ends. It runs to
     * its end even when every caller gave up waiting (each has a wait of its own): the next ones find the list loaded.
     */
    private Mono<Void> shared(long couponId, int shards) {
        Mono<Void> running = loading.get(couponId);
        if (running != null) {
            return running;
        }
        AtomicReference<Mono<Void>> self = new AtomicReference<>();
        Mono<Void> created = loadOrWait(couponId, shards)
                .doFinally(signal -> loading.remove(couponId, self.get()))
                .cache();
        self.set(created);
        running = loading.putIfAbsent(couponId, created);
        if (running != null) {
            return running;
        }
        created.subscribe(
                null,
                error -> log.warn("coupon {}: the eligibility list was not loaded: {}", couponId, error.toString()));
        return created;
    }

    /** Takes the lock and loads the list MySQL holds now; or, when another caller holds it, waits until it is gone. */
    private Mono<Void> loadOrWait(long couponId, int shards) {
        String lock = CouponKeys.eligibleLoading(couponId);
        String token = token();
        return redis.opsForValue().setIfAbsent(lock, token, LOCK_TTL).flatMap(taken -> {
            if (!taken) {
                return Mono.defer(() -> redis.hasKey(lock))
                        .filter(held -> !held)
                        .repeatWhenEmpty(empty -> empty.delayElements(LOCK_POLL))
                        .timeout(LOCK_TTL.multipliedBy(2), Mono.just(true))
                        .then();
            }
            return Mono.usingWhen(
                    Mono.just(token),
                    // the list MySQL holds now (the caller's read may be older), unless the event retired since
                    held -> blocking.call(() -> gates.findForMirror(couponId))
                            .flatMap(found -> found.isEmpty()
                                            || found.get().retired()
                                            || found.get().stored().listGeneration() == 0
                                    ? Mono.<Void>empty()
                                    : load(
                                            couponId,
                                            shards,
                                            found.get().stored().listGeneration(),
                                            token)),
                    held -> release(lock, held),
                    (held, error) -> release(lock, held),
                    held -> release(lock, held));
        });
    }

    private Mono<Void> release(String lock, String token) {
        return redis.execute(RELEASE, List.of(lock), List.of(token)).then();
    }

    private static String token() {
        var random = ThreadLocalRandom.current();
        return new UUID(random.nextLong(), random.nextLong()).toString();
    }

    private Mono<Void> load(long couponId, int shards, long generation, String token) {
        List<String> tags = tags(couponId, shards);
        long started = System.nanoTime();
        loads.increment();
        return pages(couponId, tags, generation, token, "", 0)
                .flatMap(loaded -> Flux.fromIterable(tags)
                        .concatMap(tag -> redis.execute(
                                        FINISH,
                                        List.of(
                                                StockShards.eligible(tag),
                                                StockShards.eligibleVersion(tag),
                                                StockShards.eligibleLoad(tag, token),
                                                StockShards.retired(tag)),
                                        List.of(Long.toString(generation), Integer.toString(shards)))
                                .next())
                        .collectList()
                        .doOnNext(replaced -> log.info(
                                "coupon {}: eligibility list {} loaded into Redis ({} members{}, {} ms){}",
                                couponId,
                                generation,
                                loaded,
                                shards > 1 ? " over " + shards + " shards" : "",
                                (System.nanoTime() - started) / 1_000_000,
                                replaced.contains(2L)
                                        ? "; the event retired meanwhile, the list was dropped"
                                        : replaced.contains(0L) ? "; a later one was there already" : "")))
                .then();
    }

    /** Each page of the list MySQL holds, added to the load's set of each member's home shard. */
    private Mono<Long> pages(long couponId, List<String> tags, long generation, String token, String after, long sum) {
        return blocking.call(() -> gates.page(couponId, generation, after, PAGE_SIZE))
                .flatMap(members -> {
                    if (members.isEmpty()) {
                        return Mono.just(sum);
                    }
                    Map<Integer, List<String>> homes = new TreeMap<>();
                    for (String member : members) {
                        homes.computeIfAbsent(StockShards.home(member, tags.size()), home -> new ArrayList<>())
                                .add(member);
                    }
                    return Flux.fromIterable(homes.entrySet())
                            .concatMap(home -> {
                                String loadKey = StockShards.eligibleLoad(tags.get(home.getKey()), token);
                                return redis.opsForSet()
                                        .add(loadKey, home.getValue().toArray(String[]::new))
                                        .then(redis.expire(loadKey, LOAD_TTL));
                            })
                            // the lock lasts while pages come (another caller takes it over only from a dead loader)
                            .then(redis.execute(
                                            RENEW,
                                            List.of(CouponKeys.eligibleLoading(couponId)),
                                            List.of(token, Long.toString(LOCK_TTL.toMillis())))
                                    .then())
                            .then(
                                    members.size() < PAGE_SIZE
                                            ? Mono.just(sum + members.size())
                                            : pages(
                                                    couponId,
                                                    tags,
                                                    generation,
                                                    token,
                                                    members.getLast(),
                                                    sum + members.size()));
                });
    }
}
