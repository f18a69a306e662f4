package com.flashcoupon.api.drain;

import com.flashcoupon.api.coupon.EventList;
import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The drainer's dealings with MySQL, on a thread of their own: the list of events to drain and the published marks.
 * The drain thread never waits on MySQL for longer than a tick. A slow or silent MySQL, or the coupon row locked by the
 * worker's transaction, once held the drain thread inside the mark's {@code UPDATE} until the lease lapsed: the cursor
 * did not move and the same batch went to Kafka again every turn, exactly while the database was the bottleneck.
 *
 * <p>The marks are MySQL's published high-water mark and the admissions seen, per coupon: after a Redis loss, the
 * restore counts what was published in its stock floor and what was seen but never published as unknown. Only the
 * highest of each is kept while one is written, so a slow MySQL costs one pending entry per coupon, and a mark that
 * fails is written again a second later. A mark lags the cursor by the time MySQL takes to answer; the order never
 * protected the window between Kafka's acknowledgement and the write anyway (an instance that dies there loses the
 * write either way), and the next batch raises the mark.
 */
final class DrainLedger implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(DrainLedger.class);

    private static final Duration RETRY = Duration.ofSeconds(1);

    private final CouponRepository coupons;
    private final long waitNanos;
    private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("drain-ledger").daemon().factory());
    private final Map<Long, long[]> pending = new ConcurrentHashMap<>();
    private final AtomicBoolean flushing = new AtomicBoolean();
    private CompletableFuture<Void> listing = CompletableFuture.completedFuture(null);

    private final EventList eventList;

    /** The last list of events MySQL gave, drained while MySQL cannot answer. */
    private volatile List<Long> events = List.of();

    DrainLedger(CouponRepository coupons, EventList eventList, Duration tick, MeterRegistry meters) {
        this.coupons = coupons;
        this.eventList = eventList;
        this.waitNanos = tick.toNanos();
        meters.gauge("coupon.drain.marks.pending", pending, Map::size);
    }

    /**
     * Every event that still has state in Redis, as MySQL lists them (a list with no key of its own in Redis, so it
     * works on a Redis Cluster and no event can fall out of it while it has requests to publish), read again only when
     * it changed ({@link EventList}). Asks MySQL again
     * and waits for its answer at most a tick; until it comes, the last list it gave. Drain thread only.
     */
    List<Long> events() {
        if (listing.isDone()) {
            listing = CompletableFuture.runAsync(this::list, thread);
        }
        try {
            listing.get(waitNanos, TimeUnit.NANOSECONDS);
        } catch (TimeoutException slow) {
            log.debug("MySQL did not list the events to drain within a tick; using the last list");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("the list of events to drain could not be read from MySQL; using the last one: {}", e.toString());
        }
        return events;
    }

    private void list() {
        List<Long> ids = eventList.withRedisState();
        if (ids.size() == CouponRepository.MAX_LIVE_EVENTS) {
            log.warn(
                    "{} events have state in Redis: only the newest are drained; close or retire past events",
                    ids.size());
        }
        events = ids;
    }

    /** Raises the coupon's marks in MySQL soon, off the caller's thread; never blocks, never fails. */
    void recordPublished(long couponId, long publishedCount, long admittedSeen) {
        pending.merge(couponId, new long[] {publishedCount, admittedSeen}, (a, b) ->
                new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])});
        if (flushing.compareAndSet(false, true)) {
            thread.execute(this::flush);
        }
    }

    private void flush() {
        flushing.set(false);
        for (Long couponId : List.copyOf(pending.keySet())) {
            long[] marks = pending.remove(couponId);
            if (marks == null) {
                continue;
            }
            try {
                coupons.recordPublished(couponId, marks[0], marks[1]);
            } catch (RuntimeException e) {
                pending.merge(couponId, marks, (a, b) -> new long[] {Math.max(a[0], b[0]), Math.max(a[1], b[1])});
                log.warn(
                        "coupon {}: published_count not recorded in MySQL, again in {}: {}",
                        couponId,
                        RETRY,
                        e.toString());
                if (flushing.compareAndSet(false, true)) {
                    thread.schedule(this::flush, RETRY.toMillis(), TimeUnit.MILLISECONDS);
                }
                return;
            }
        }
    }

    /** Writes what is pending, for a second at most (a shutdown must not hang on a silent MySQL). */
    @Override
    public void close() {
        thread.execute(this::flush);
        thread.shutdown();
        try {
            thread.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        thread.shutdownNow();
    }
}
