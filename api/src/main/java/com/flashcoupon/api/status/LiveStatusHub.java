package com.flashcoupon.api.status;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.contract.LuaScripts;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Every open status stream of this instance, by coupon and member. Streams cost no thread and no Redis call of their
 * own: one ticker reads each coupon's progress once per tick (one script call however many streams wait on it) and
 * fans positions and heartbeats out; results come from the result listener ({@link #onResult}), and, as a fallback
 * for results this instance's listener missed (start-up, a broker outage), from the coupon's Redis result hash for
 * streams whose turn has passed.
 */
@Component
public class LiveStatusHub implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(LiveStatusHub.class);

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> TICK =
            RedisScript.of(DrawWindow.withWindow(LuaScripts.text("scripts/live_tick.lua")), List.class);

    /** live_tick.lua's reply: done, rate, the draw's entrants, places and state, then the lookups. */
    private static final int REPLY_HEAD = 5;

    /** Result lookups per coupon and tick; bounded to stay well inside Lua's argument limit. */
    private static final int MAX_LOOKUPS = 1000;

    private final Map<Long, Map<String, Set<LiveStream>>> coupons = new ConcurrentHashMap<>();
    private final Map<Long, Long> lastDone = new ConcurrentHashMap<>();

    /** Each coupon's draw state as the last tick read it (live_tick.lua's: 0 when there is no draw to wait for). */
    private final Map<Long, Integer> drawStates = new ConcurrentHashMap<>();

    private final AtomicInteger open = new AtomicInteger();
    private final AtomicLong ticks = new AtomicLong();
    private final StatusService statuses;
    private final ReactiveStringRedisTemplate redis;
    private final LiveProperties properties;
    private final long heartbeatEvery;
    private volatile Disposable ticker;

    private final IssuePace pace;
    private final LiveStreamCaps caps;

    private final MemberDraws memberDraws;

    LiveStatusHub(
            StatusService statuses,
            ReactiveStringRedisTemplate redis,
            LiveProperties properties,
            IssuePace pace,
            LiveStreamCaps caps,
            MeterRegistry meters,
            MemberDraws memberDraws) {
        this.memberDraws = memberDraws;
        this.caps = caps;
        this.pace = pace;
        this.statuses = statuses;
        this.redis = redis;
        this.properties = properties;
        this.heartbeatEvery = Math.max(
                1, properties.heartbeat().toMillis() / properties.tick().toMillis());
        Gauge.builder("coupon.live.streams", open, AtomicInteger::get)
                .description("Open live status streams of this instance")
                .register(meters);
    }

    /**
     * The member's stream: the status at once, positions as the queue drains, the final status, then completion. A
     * member without a request gets the status read's 404 before any event, and a stream over the instance's cap a 503;
     * once the status read accepted it, the member's older streams for the coupon beyond their cap are replaced, and
     * the stream ends at its lifetime ({@link LiveStreamCaps}).
     */
    Flux<ServerSentEvent<Object>> open(long couponId, String memberId, ServerHttpRequest request, String lastEventId) {
        return open(List.of(couponId), memberId, request, lastEventId);
    }

    /**
     * One stream that follows several of the member's requests ({@code GET /api/v1/me/events}): each coupon as on a
     * stream of its own (its place among the instance's streams, its cap per member and coupon, its final event), all
     * on one connection, which ends once every coupon's stream has ended. The status of every coupon is read before
     * the first event, so any coupon's 404 (or 429) is the answer to the whole request; the connection's lifetime ends
     * every coupon still followed with a {@code reconnect} event at the same moment.
     */
    Flux<ServerSentEvent<Object>> open(
            List<Long> couponIds, String memberId, ServerHttpRequest request, String lastEventId) {
        Map<Long, String> seen = StreamIds.seen(lastEventId);
        return Flux.defer(() -> {
            List<LiveStream> streams = new ArrayList<>(couponIds.size());
            for (long couponId : couponIds) {
                var full = caps.tryOpen();
                if (full != null) {
                    streams.forEach(taken -> caps.closed());
                    return Flux.error(full);
                }
                streams.add(new LiveStream(couponId, memberId, properties.maxBuffered(), caps.nextSerial()));
            }
            streams.forEach(this::add);
            return Flux.fromIterable(streams)
                    .concatMap(stream -> statuses.track(stream.couponId, memberId, request))
                    .collectList()
                    .flatMapMany(tracked -> {
                        long now = System.nanoTime();
                        for (int i = 0; i < streams.size(); i++) {
                            LiveStream stream = streams.get(i);
                            stream.start(tracked.get(i), now);
                            Map<String, Set<LiveStream>> members = coupons.get(stream.couponId);
                            caps.replaceOlder(members == null ? null : members.get(memberId), stream);
                        }
                        Disposable lifetime = caps.endAtLifetime(streams);
                        Flux<ServerSentEvent<Object>> events = streams.size() == 1
                                ? streams.getFirst().events()
                                : Flux.merge(
                                        streams.stream().map(LiveStream::events).toList());
                        return StreamIds.withIds(events, Set.copyOf(couponIds), seen)
                                .doFinally(signal -> lifetime.dispose());
                    })
                    .doFinally(signal -> streams.forEach(stream -> {
                        remove(stream);
                        caps.closed();
                    }));
        });
    }

    /** A result from the result topic: the member's streams here, if any, get the final status and close. */
    public void onResult(IssueResult result) {
        Map<String, Set<LiveStream>> members = coupons.get(result.couponId());
        Set<LiveStream> streams = members == null ? null : members.get(result.memberId());
        if (streams == null) {
            return;
        }
        IssueStatus status = result.outcome() == IssueResult.Outcome.ISSUED
                ? IssueStatus.issued(result.couponId(), result.memberId(), result.walletCouponId())
                : IssueStatus.failed(result.couponId(), result.memberId(), result.failureReason());
        streams.forEach(stream -> stream.finish(status));
    }

    /** The coupons this instance has open streams for, a live view: the result intake reads their partitions only. */
    Set<Long> streamedCoupons() {
        return Collections.unmodifiableSet(coupons.keySet());
    }

    /** Open streams of this instance. */
    public int openStreams() {
        return open.get();
    }

    private void add(LiveStream stream) {
        coupons.compute(stream.couponId, (id, members) -> {
            Map<String, Set<LiveStream>> map = members == null ? new ConcurrentHashMap<>() : members;
            map.computeIfAbsent(stream.memberId, member -> ConcurrentHashMap.newKeySet())
                    .add(stream);
            return map;
        });
        open.incrementAndGet();
    }

    private void remove(LiveStream stream) {
        coupons.computeIfPresent(stream.couponId, (id, members) -> {
            members.computeIfPresent(stream.memberId, (member, streams) -> {
                streams.remove(stream);
                return streams.isEmpty() ? null : streams;
            });
            return members.isEmpty() ? null : members;
        });
        open.decrementAndGet();
    }

    private Mono<Void> tick() {
        boolean heartbeat = ticks.incrementAndGet() % heartbeatEvery == 0;
        lastDone.keySet().retainAll(coupons.keySet());
        drawStates.keySet().retainAll(coupons.keySet());
        return Flux.fromIterable(List.copyOf(coupons.keySet()))
                .flatMap(couponId -> tick(couponId, heartbeat), 16)
                .then();
    }

    private Mono<Void> tick(long couponId, boolean heartbeat) {
        Map<String, Set<LiveStream>> members = coupons.get(couponId);
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
                .doOnNext(reply -> fanOut(couponId, members, lookups, drawn, reply, heartbeat))
                .onErrorResume(e -> {
                    log.warn("live status tick of coupon {} failed: {}", couponId, e.toString());
                    return Mono.empty();
                })
                .then();
    }

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
        coupons.values().forEach(members -> members.values().forEach(streams -> streams.forEach(LiveStream::close)));
    }

    @Override
    public boolean isRunning() {
        return ticker != null;
    }
}
