package com.flashcoupon.api.coupon;

import com.flashcoupon.db.CouponRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.stereotype.Component;

/**
 * The events that still have state in Redis, as MySQL lists them, read from MySQL only when the list changed.
 *
 * <p>Every instance's drainer (5 times a second), retirer and gauges listed the events from MySQL: at the hundreds of
 * instances of a large sale, over a thousand queries a second on the one MySQL primary before any admission (issue
 * 27). The list changes only when an event is created or its Redis keys are removed; both set a new version in Redis
 * ({@link #VERSION_KEY}, a random one: a version lost with Redis and counted again could repeat; set after the change
 * is committed), and an instance reads MySQL again only when the version it
 * sees differs from the one of its last read, or that read is older than {@link #MAX_AGE} (a change whose bump was
 * lost, a row edited by hand). So MySQL's load is the number of changes plus one read per instance every
 * {@link #MAX_AGE}, and each instance asks Redis one {@code GET} per call instead.
 *
 * <p>A version read before a change and a list read after it only costs one more read later. When Redis cannot
 * answer, MySQL is read at most once a second (nothing is drained without Redis anyway). Callers on blocking threads.
 */
@Component
public class EventList {

    private static final Logger log = LoggerFactory.getLogger(EventList.class);

    /** The list's version, random: one key, shared by every instance (no hash tag: it is one key on a Redis Cluster too). */
    public static final String VERSION_KEY = "coupon:events:version";

    /** The oldest list an instance uses when the version has not moved. */
    static final Duration MAX_AGE = Duration.ofSeconds(10);

    /** How often MySQL is read while Redis cannot say whether the list changed. */
    private static final Duration WITHOUT_REDIS = Duration.ofSeconds(1);

    private final CouponRepository coupons;
    private final StringRedisTemplate redis;
    private final Counter reads;
    private List<Long> cached;
    private String version;
    private long readAt;

    EventList(CouponRepository coupons, StringRedisTemplate redis, MeterRegistry meters) {
        this.coupons = coupons;
        this.redis = redis;
        this.reads = Counter.builder("coupon.events.list.reads")
                .description("Reads of the list of events with Redis state from MySQL (the rest came from this"
                        + " instance's copy)")
                .register(meters);
    }

    /**
     * The newest {@link CouponRepository#MAX_LIVE_EVENTS} events with state in Redis; throws when the list has to be
     * read and MySQL cannot answer (the caller keeps its last one).
     */
    public synchronized List<Long> withRedisState() {
        long now = System.nanoTime();
        String current;
        try {
            current = redis.opsForValue().get(VERSION_KEY);
        } catch (RuntimeException e) {
            if (cached != null && now - readAt < WITHOUT_REDIS.toNanos()) {
                return cached;
            }
            return read(version, now);
        }
        if (cached != null && Objects.equals(current, version) && now - readAt < MAX_AGE.toNanos()) {
            return cached;
        }
        return read(current, now);
    }

    private List<Long> read(String seen, long now) {
        List<Long> ids = coupons.findWithRedisState(CouponRepository.MAX_LIVE_EVENTS);
        reads.increment();
        cached = ids;
        version = seen;
        readAt = now;
        return ids;
    }

    /**
     * An event was created or left Redis (call after the change is committed): every instance reads the list again at
     * its next call, this one whatever Redis says.
     */
    public void changed() {
        synchronized (this) {
            cached = null;
        }
        try {
            redis.opsForValue().set(VERSION_KEY, UUID.randomUUID().toString());
        } catch (RuntimeException e) {
            log.debug("the event list's version not bumped ({}); other instances see the change within {}", e, MAX_AGE);
        }
    }
}
