package com.flashcoupon.api.status;

import com.flashcoupon.contract.IssueResult;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.codec.ServerSentEvent;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.stereotype.Component;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

/**
 * Every open status stream of this instance, by coupon and member. Streams cost no thread and no Redis call of their
 * own: one ticker ({@link LiveTicker}) reads each coupon's progress once per tick and fans positions and heartbeats
 * out; results come from the result listener ({@link #onResult}), and, as a fallback for results this instance's
 * listener missed (start-up, a broker outage), from the Redis results of streams whose turn has passed.
 */
@Component
public class LiveStatusHub {

    private static final Logger log = LoggerFactory.getLogger(LiveStatusHub.class);

    private final Map<Long, Map<String, Set<LiveStream>>> coupons = new ConcurrentHashMap<>();

    private final AtomicInteger open = new AtomicInteger();
    private final StatusService statuses;
    private final LiveProperties properties;

    private final LiveStreamCaps caps;

    LiveStatusHub(StatusService statuses, LiveProperties properties, LiveStreamCaps caps, MeterRegistry meters) {
        this.caps = caps;
        this.statuses = statuses;
        this.properties = properties;
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

    /** Every open stream, by coupon and member: what the ticker fans progress out to. */
    Map<Long, Map<String, Set<LiveStream>>> streams() {
        return coupons;
    }

    /** Ends every open stream (the instance stops). */
    void closeAll() {
        coupons.values().forEach(members -> members.values().forEach(streams -> streams.forEach(LiveStream::close)));
    }
}
