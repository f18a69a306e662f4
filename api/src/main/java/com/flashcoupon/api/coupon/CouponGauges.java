package com.flashcoupon.api.coupon;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Per-coupon gauges of the admission queue, refreshed from Redis every couple of seconds, for the {@value #RECENT}
 * most recent events and any other event that still has state in Redis (both lists from MySQL):
 *
 * <ul>
 *   <li>{@code coupon.queue.waiting{coupon}}: admitted requests without a result yet (issued or failed);
 *   <li>{@code coupon.drain.lag{coupon}}: admitted minus published to Kafka.
 * </ul>
 *
 * An event that drops out of both sets loses its series, so the number of series stays bounded. Redis is read
 * without blocking; the MySQL queries run on the JDBC scheduler.
 */
@Component
class CouponGauges {

    static final int RECENT = 20;

    /** Events with state in Redis that get gauges; retirement keeps the real number far below. */
    static final int LIVE = 200;

    private static final Logger log = LoggerFactory.getLogger(CouponGauges.class);

    private final CouponRepository coupons;
    private final EventList eventList;
    private final BlockingIo blocking;
    private final CouponStates states;
    private final MeterRegistry meters;
    private final Map<Long, Levels> levels = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();

    CouponGauges(
            CouponRepository coupons,
            EventList eventList,
            BlockingIo blocking,
            CouponStates states,
            MeterRegistry meters) {
        this.coupons = coupons;
        this.eventList = eventList;
        this.blocking = blocking;
        this.states = states;
        this.meters = meters;
    }

    @Scheduled(fixedDelayString = "${coupon.metrics.gauge-refresh:2s}")
    void refresh() {
        if (!running.compareAndSet(false, true)) {
            return; // the previous refresh is still reading
        }
        blocking.call(() -> {
                    List<Long> live = eventList.withRedisState(); // newest first
                    Set<Long> ids = new HashSet<>(live.subList(0, Math.min(LIVE, live.size())));
                    coupons.findRecent(RECENT).forEach(coupon -> ids.add(coupon.id()));
                    return ids;
                })
                .flatMapMany(ids -> {
                    levels.keySet().stream()
                            .filter(id -> !ids.contains(id))
                            .toList()
                            .forEach(this::forget);
                    return Flux.fromIterable(ids)
                            .flatMap(
                                    id -> states.load(id).doOnNext(this::update).onErrorResume(e -> {
                                        forget(id);
                                        return Mono.empty();
                                    }));
                })
                .doFinally(signal -> running.set(false))
                .subscribe(state -> {}, e -> log.debug("coupon gauges not refreshed: {}", e.toString()));
    }

    private void update(CouponState state) {
        Levels level = levels.computeIfAbsent(state.id(), this::register);
        level.waiting.set(state.waiting());
        level.lag.set(Math.max(0, state.admitted() - state.published()));
    }

    private Levels register(long couponId) {
        var level = new Levels();
        String coupon = Long.toString(couponId);
        level.gauges.add(Gauge.builder("coupon.queue.waiting", level.waiting, AtomicLong::get)
                .description("Admitted requests of a coupon without a result yet")
                .tag("coupon", coupon)
                .register(meters));
        level.gauges.add(Gauge.builder("coupon.drain.lag", level.lag, AtomicLong::get)
                .description("Admitted requests of a coupon not yet published to Kafka")
                .tag("coupon", coupon)
                .register(meters));
        return level;
    }

    private void forget(long couponId) {
        Levels level = levels.remove(couponId);
        if (level != null) {
            level.gauges.forEach(meters::remove);
        }
    }

    private static final class Levels {
        final AtomicLong waiting = new AtomicLong();
        final AtomicLong lag = new AtomicLong();
        final Set<Gauge> gauges = new HashSet<>();
    }
}
