package com.flashcoupon.api.gatestate;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.contract.CouponKeys;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Brings an event's gate into Redis for the mirror (CouponMirror): the settings as mirror.lua's ARGV[14], and the
 * eligibility list, loaded from MySQL whenever Redis does not hold the current upload (after an upload, and after a
 * Redis loss, before the meta exists again: admission never runs on a half list). A load fills a set of its own, page
 * by page, and replaces the list in one step at its end; a loader that died leaves a set that expires.
 */
@Component
public class GateMirror {

    private static final Logger log = LoggerFactory.getLogger(GateMirror.class);

    /** Members per MySQL read and per SADD. */
    static final int PAGE_SIZE = 5_000;

    /** How long a load's own set lives without a page written. */
    private static final Duration LOAD_TTL = Duration.ofSeconds(60);

    private static final RedisScript<Long> FINISH = RedisScript.of("""
            -- KEYS: 1 the list, 2 its version, 3 the load's set; ARGV: 1 the load's generation
            -- Replaces the list with the load's set unless Redis holds this generation or a later one already.
            if tonumber(redis.call('GET', KEYS[2]) or '0') >= tonumber(ARGV[1]) then
              redis.call('DEL', KEYS[3])
              return 0
            end
            if redis.call('EXISTS', KEYS[3]) == 1 then
              redis.call('RENAME', KEYS[3], KEYS[1])
            else
              redis.call('DEL', KEYS[1])
            end
            redis.call('SET', KEYS[2], ARGV[1])
            return 1
            """, Long.class);

    private final ReactiveStringRedisTemplate redis;
    private final GateRepository gates;
    private final BlockingIo blocking;

    GateMirror(ReactiveStringRedisTemplate redis, GateRepository gates, BlockingIo blocking) {
        this.redis = redis;
        this.gates = gates;
        this.blocking = blocking;
    }

    /** mirror.lua's ARGV[14] for the event, once Redis holds its current list. */
    public Mono<String> prepare(long couponId) {
        return blocking.call(() -> gates.find(couponId))
                .flatMap(found -> found.isEmpty()
                        ? Mono.just(GateSettings.NONE.mirrorArg(0))
                        : ensureList(couponId, found.get().listGeneration())
                                .thenReturn(found.get()
                                        .settings()
                                        .mirrorArg(found.get().listCount())));
    }

    private Mono<Void> ensureList(long couponId, long generation) {
        if (generation == 0) {
            return Mono.empty();
        }
        return redis.opsForValue()
                .get(CouponKeys.eligibleVersion(couponId))
                .defaultIfEmpty("0")
                .flatMap(held -> Long.parseLong(held) >= generation ? Mono.empty() : load(couponId, generation));
    }

    private Mono<Void> load(long couponId, long generation) {
        var random = ThreadLocalRandom.current();
        String loadKey = CouponKeys.eligibleLoad(couponId, new UUID(random.nextLong(), random.nextLong()).toString());
        long started = System.nanoTime();
        return pages(couponId, generation, loadKey, "", 0)
                .flatMap(loaded -> redis.execute(
                                FINISH,
                                List.of(CouponKeys.eligible(couponId), CouponKeys.eligibleVersion(couponId), loadKey),
                                List.of(Long.toString(generation)))
                        .next()
                        .doOnNext(replaced -> log.info(
                                "coupon {}: eligibility list {} loaded into Redis ({} members, {} ms){}",
                                couponId,
                                generation,
                                loaded,
                                (System.nanoTime() - started) / 1_000_000,
                                replaced == 1 ? "" : "; a later one was there already")))
                .then();
    }

    private Mono<Long> pages(long couponId, long generation, String loadKey, String after, long sum) {
        return blocking.call(() -> gates.page(couponId, generation, after, PAGE_SIZE))
                .flatMap(members -> {
                    if (members.isEmpty()) {
                        return Mono.just(sum);
                    }
                    List<String> page = new ArrayList<>(members);
                    return redis.opsForSet()
                            .add(loadKey, page.toArray(String[]::new))
                            .then(redis.expire(loadKey, LOAD_TTL))
                            .then(
                                    members.size() < PAGE_SIZE
                                            ? Mono.just(sum + members.size())
                                            : pages(
                                                    couponId,
                                                    generation,
                                                    loadKey,
                                                    members.getLast(),
                                                    sum + members.size()));
                });
    }
}
