package com.flashcoupon.api.status;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.shard.ShardDraws;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.shard.ShardStock;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.LuaScripts;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The ticker of the open status streams ({@link LiveStatusHub}): each tick reads every streamed coupon's progress once
 * (one script call however many streams wait on it: done, rate, the draw's odds, the results of streams whose turn
 * has passed) and fans positions, results and heartbeats out. For an event whose stock is in shards, what is done
 * comes from every shard, as this instance's drain ticks last read them, and the results from each member's home
 * shard ({@link ShardPositions}).
 */
@Component
class LiveTicker implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LiveTicker.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TICK =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/live_tick.lua")), List.class);

    /** live_tick.lua's reply: done, rate, the draw's entrants, places and state, then the lookups. */
    private static final int REPLY_HEAD = 5;

    /** Result lookups per coupon and tick; bounded to stay well inside Lua's argument limit. */
    private static final int MAX_LOOKUPS = 1000;

    private final Map<Long, Long> lastDone = new ConcurrentHashMap<>();

    /** Each coupon's draw state as the last tick read it (live_tick.lua's: 0 when there is no draw to wait for). */
    private final Map<Long, Integer> drawStates = new ConcurrentHashMap<>();

    private final AtomicLong ticks = new AtomicLong();
    private final LiveStatusHub hub;
    private final ReactiveStringRedisTemplate redis;
    private final LiveProperties properties;
    private final IssuePace pace;
    private final MemberDraws memberDraws;
    private final ShardPositions shards;
    private final ShardDraws shardDraws;
    private final long heartbeatEvery;
    private volatile Disposable ticker;

    LiveTicker(
            LiveStatusHub hub,
            ReactiveStringRedisTemplate redis,
            LiveProperties properties,
            IssuePace pace,
            MemberDraws memberDraws,
            ShardPositions shards,
            ShardStock stock) {
        this.shardDraws = stock.draws();
        this.hub = hub;
        this.redis = redis;
        this.properties = properties;
        this.pace = pace;
        this.memberDraws = memberDraws;
        this.shards = shards;
        this.heartbeatEvery = Math.max(
                1, properties.heartbeat().toMillis() / properties.tick().toMillis());
    }

    private Mono<Void> tick() {
        boolean heartbeat = ticks.incrementAndGet() % heartbeatEvery == 0;
        lastDone.keySet().retainAll(hub.streams().keySet());
        drawStates.keySet().retainAll(hub.streams().keySet());
        return Flux.fromIterable(List.copyOf(hub.streams().keySet()))
                .flatMap(couponId -> tick(couponId, heartbeat), 16)
                .then();
    }

    private Mono<Void> tick(long couponId, boolean heartbeat) {
        Map<String, Set<LiveStream>> members = hub.streams().get(couponId);
        if (members == null) {
            return Mono.empty();
        }
        long knownDone = lastDone.getOrDefault(couponId, 0L);
        List<String> lookups = new ArrayList<>();
        for (Map.Entry<String, Set<LiveStream>> entry : members.entrySet()) {
            if (lookups.size() >= MAX_LOOKUPS) {
                break;
            }
            for (LiveStream stream : entry.getValue()) {
                long sequence = stream.waitingSequence();
                if (sequence > 0 && sequence <= knownDone) {
                    lookups.add(entry.getKey());
                    break;
                }
            }
        }
        // members waiting for a draw are looked up once it is due by this clock, or made by the last tick's reading
        List<String> drawn = new ArrayList<>();
        long nowMillis = System.currentTimeMillis();
        boolean made = drawStates.getOrDefault(couponId, -1) == 0;
        for (Map.Entry<String, Set<LiveStream>> entry : members.entrySet()) {
            if (drawn.size() >= MAX_LOOKUPS) {
                break;
            }
            for (LiveStream stream : entry.getValue()) {
                Instant drawAt = stream.awaitingDraw();
                if (drawAt != null && (made || nowMillis >= drawAt.toEpochMilli())) {
                    drawn.add(entry.getKey());
                    break;
                }
            }
        }
        List<String> keys = List.of(
                CouponKeys.meta(couponId),
                CouponKeys.done(couponId),
                CouponKeys.result(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.draw(couponId),
                CouponKeys.seq(couponId));
        List<String> args = new ArrayList<>(1 + lookups.size() + drawn.size());
        args.add(Integer.toString(lookups.size()));
        args.addAll(lookups);
        args.addAll(drawn);
        return redis.execute(TICK, keys, args)
                .next()
                .flatMap(reply -> acrossShards(couponId, reply, lookups, drawn))
                .doOnNext(reply -> fanOut(couponId, members, lookups, drawn, reply, heartbeat))
                .onErrorResume(e -> {
                    log.warn("live status tick of coupon {} failed: {}", couponId, e.toString());
                    return Mono.empty();
                })
                .then();
    }

    /**
     * live_tick.lua's reply as it would read for an event of one shard: for an event whose stock is in shards, what is
     * done on every shard (each shard's as this instance last saw it, from its drain ticks and admission replies)
     * instead of shard 0's, and the lookups' results from each member's home shard.
     */
    private Mono<List<?>> acrossShards(long couponId, List<?> reply, List<String> lookups, List<String> drawn) {
        int count = shards.shards(couponId);
        if (count <= 1) {
            return Mono.just(reply);
        }
        List<Object> adjusted = new ArrayList<>(reply);
        long done = shards.done(couponId);
        if (done >= 0) {
            adjusted.set(0, done);
        }
        // a fair start's odds count every shard's entrants (the meta's draw holds none)
        Mono<List<Object>> odds = number(reply, 4) == 0
                ? Mono.just(adjusted)
                : shardDraws.counts(couponId, count).map(counts -> {
                    adjusted.set(2, counts.entrants());
                    adjusted.set(3, counts.places());
                    return adjusted;
                });
        Mono<List<Object>> results = lookups.isEmpty()
                ? odds
                : odds.flatMap(withOdds -> shards.results(couponId, count, lookups)
                        .map(found -> {
                            for (int i = 0; i < lookups.size(); i++) {
                                withOdds.set(REPLY_HEAD + i, found.getOrDefault(lookups.get(i), ""));
                            }
                            return withOdds;
                        }));
        // the draw's members, read on their home shard: their place across shards once it placed them (as a
        // sequence reads for one shard), -1 once it left them out, 0 while it is not written there; one decided
        // already is looked up on the next tick
        return results.flatMap(withResults -> reactor.core.publisher.Flux.range(0, drawn.size())
                .concatMap(i -> shards.standing(couponId, count, drawn.get(i)).map(standing -> {
                    long placed;
                    if (!standing.found() || standing.draw() != null) {
                        placed = 0;
                    } else if (standing.result().isEmpty()) {
                        placed = standing.place().ahead() + 1;
                    } else {
                        placed = (FAILED_SOLD_OUT.equals(standing.result())) ? -1 : 1;
                    }
                    withResults.set(REPLY_HEAD + lookups.size() + i, placed);
                    return placed;
                }))
                .then(Mono.just(withResults)));
    }

    private static final String FAILED_SOLD_OUT = CouponKeys.FAILED_PREFIX + FailureReason.SOLD_OUT.name();

    /**
     * Ends the streams with their final status, with the member's line of a made draw (function 2) when the event has
     * one ({@link MemberDraws}: a first-come event's answer is remembered, so it costs nothing after the first).
     */
    private void finish(Set<LiveStream> streams, IssueStatus status) {
        memberDraws
                .withOutcome(status)
                .onErrorReturn(status)
                .subscribe(final_ -> streams.forEach(stream -> stream.finish(final_)));
    }

    private void fanOut(
            long couponId,
            Map<String, Set<LiveStream>> members,
            List<String> lookups,
            List<String> drawn,
            List<?> reply,
            boolean beat) {
        long done = number(reply, 0);
        IssuePace.Pace rate = pace.pace(couponId, (int) number(reply, 1));
        var odds = new LiveStream.Odds(number(reply, 2), number(reply, 3), (int) number(reply, 4));
        lastDone.put(couponId, done);
        drawStates.put(couponId, odds.state());
        for (int i = 0; i < lookups.size(); i++) {
            String value = text(reply, i + REPLY_HEAD);
            if (!value.isEmpty()) {
                IssueStatus status = StatusService.fromResult(couponId, lookups.get(i), value);
                Set<LiveStream> streams = members.get(lookups.get(i));
                if (streams != null) {
                    finish(streams, status);
                }
            }
        }
        for (int i = 0; i < drawn.size(); i++) {
            long placed = number(reply, REPLY_HEAD + lookups.size() + i);
            Set<LiveStream> streams = members.get(drawn.get(i));
            if (streams == null || placed == 0) {
                continue;
            }
            if (placed > 0) {
                streams.forEach(stream -> stream.drawn(placed));
            } else {
                IssueStatus left = IssueStatus.failed(couponId, drawn.get(i), FailureReason.SOLD_OUT.name());
                finish(streams, left);
            }
        }
        long now = System.nanoTime();
        long minGap = properties.tick().toNanos() - Duration.ofMillis(20).toNanos();
        for (Set<LiveStream> streams : members.values()) {
            for (LiveStream stream : streams) {
                stream.odds(odds, rate, now, minGap);
                stream.progress(done, rate, now, minGap);
                if (beat) {
                    stream.heartbeat();
                }
            }
        }
    }

    @Override
    public void start() {
        ticker = Flux.interval(properties.tick(), properties.tick())
                .onBackpressureDrop()
                .concatMap(i -> tick(), 1)
                .subscribe(null, e -> log.error("live status ticker stopped", e));
    }

    @Override
    public void stop() {
        Disposable running = ticker;
        if (running != null) {
            running.dispose();
        }
        ticker = null;
        hub.closeAll();
    }

    @Override
    public boolean isRunning() {
        return ticker != null;
    }
}
