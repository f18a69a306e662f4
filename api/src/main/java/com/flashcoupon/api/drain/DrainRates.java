package com.flashcoupon.api.drain;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.config.ApiProperties;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.contract.CouponKeys;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * The rate decisions of the drain, once per tick and coupon, on every instance: the effective rate (decided by the
 * {@link RateGovernor} where this instance drains the coupon, read from Redis otherwise), fed with the coupon's
 * progress to the waiting estimates ({@link IssuePace}), left in the coupon's meta for the other instances, and shown as
 * per-coupon meters that go with the event when it retires. Drain thread only.
 */
final class DrainRates {

    private static final Logger log = LoggerFactory.getLogger(DrainRates.class);

    /** A worker write latency older than this says nothing about MySQL now (nothing was written for the coupon). */
    static final long FRESH_WRITE_MS = 5_000;

    /** Sets fields of the coupon's meta hash only while it exists, so a retirement meanwhile is not undone. */
    private static final RedisScript<Long> SET_RATE = RedisScript.of(
            "if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end "
                    + "redis.call('HSET', KEYS[1], 'effRate', ARGV[1], 'effReason', ARGV[2]) return 1",
            Long.class);

    private static final String CUTS = "coupon.drain.rate.cuts";

    private final StringRedisTemplate redis;
    private final RateGovernor governor;
    private final IssuePace pace;
    private final MeterRegistry meters;
    private final Counter malformed;
    private final Map<Long, List<Meter>> rateMeters = new HashMap<>();
    private final Set<String> warned = new HashSet<>();

    DrainRates(StringRedisTemplate redis, ApiProperties.Drain settings, IssuePace pace, MeterRegistry meters) {
        this.redis = redis;
        this.governor = new RateGovernor(settings.adaptive());
        this.pace = pace;
        this.meters = meters;
        this.malformed = Counter.builder("coupon.drain.meta.malformed")
                .description("Fields of a coupon's drain state in Redis that were not numbers (skipped or rewritten)")
                .register(meters);
    }

    /** What this instance just published of the coupon in all, for its estimates ({@link IssuePace#published}). */
    void published(long couponId, long published) {
        pace.published(couponId, published);
    }

    /**
     * The rate this coupon drains at now (0 when it is not in Redis), from its claim (drain_claim.lua's reply).
     */
    double decide(long couponId, List<?> claim, boolean owned) {
        int configured = (int) number(claim, 3);
        if (configured == -1) {
            malformed(couponId, "rate", "the coupon is not drained until its rate is set again");
            return 0;
        }
        if (configured <= 0) {
            return 0; // not in Redis
        }
        long cursor = number(claim, 1);
        long queued = number(claim, 2);
        long base = valid(couponId, "base", number(claim, 4));
        long done = valid(couponId, "done", number(claim, 5));
        String storedRate = text(claim, 6);
        double stored = parse(couponId, "effRate", storedRate);
        boolean noRate = Double.isNaN(stored);
        double effective = noRate ? configured : stored;
        String reason = text(claim, 7);
        if (owned) {
            double writeMs = text(claim, 8).isEmpty() || number(claim, 9) > FRESH_WRITE_MS
                    ? 0
                    : parse(couponId, "writeMs", text(claim, 8));
            long writeMillis = Double.isNaN(writeMs) ? 0 : (long) writeMs;
            long inFlight = Math.max(0, base + cursor - done);
            governor.resume(couponId, effective, reason);
            RateGovernor.Decision decision = governor.decide(
                    couponId,
                    configured,
                    new RateGovernor.Signals(writeMillis, inFlight, done, pace.clearingRate(couponId)),
                    System.nanoTime());
            // a malformed stored rate is rewritten here, whatever the decision
            if (decision.changed() || noRate != (decision.rate() >= configured) || isMalformed(storedRate, stored)) {
                store(couponId, decision, configured);
            }
            effective = decision.rate();
            reason = decision.reason();
        } else {
            governor.forget(couponId);
        }
        registerMeters(couponId);
        if (log.isDebugEnabled()) {
            log.debug(
                    "coupon {}: owned {}, cursor {}, queued {}, base {}, done {}, rate {}, effective {} ({})",
                    couponId,
                    owned,
                    cursor,
                    queued,
                    base,
                    done,
                    configured,
                    effective,
                    reason);
        }
        pace.observe(couponId, done, base + cursor, base + queued, configured, effective, reason, System.nanoTime());
        return Math.min(effective, configured);
    }

    /**
     * A number from the coupon's state in Redis, NaN when absent. One that is not a number (written by hand, or by a
     * version that wrote it differently) is logged, counted and treated as absent: it once made the coupon's drain
     * throw every tick, a stall nothing ended.
     */
    private double parse(long couponId, String field, String value) {
        if (value.isEmpty()) {
            return Double.NaN;
        }
        try {
            double parsed = Double.parseDouble(value);
            if (Double.isFinite(parsed) && parsed >= 0) {
                return parsed;
            }
        } catch (NumberFormatException e) {
            // below
        }
        malformed(couponId, field + " ('" + value + "')", "ignored");
        return Double.NaN;
    }

    /** A count drain_claim.lua found malformed (-1) is logged, counted and taken as 0. */
    private long valid(long couponId, String field, long value) {
        if (value != -1) {
            return value;
        }
        malformed(couponId, field, "taken as 0");
        return 0;
    }

    /** Counted every time, logged once per coupon and field while the coupon is drained. */
    private void malformed(long couponId, String field, String consequence) {
        malformed.increment();
        if (warned.add(couponId + "/" + field)) {
            log.warn("coupon {}: {} in Redis is not a number; {}", couponId, field, consequence);
        }
    }

    private static boolean isMalformed(String value, double parsed) {
        return !value.isEmpty() && Double.isNaN(parsed);
    }

    /** Leaves the effective rate in Redis for the other instances' estimates and for whoever drains next. */
    private void store(long couponId, RateGovernor.Decision decision, int configured) {
        boolean cut = decision.rate() < configured;
        redis.execute(
                SET_RATE,
                List.of(CouponKeys.meta(couponId)),
                cut ? Double.toString(Math.round(decision.rate() * 100) / 100.0) : "",
                decision.reason());
        if (decision.changed() && cut && !decision.reason().isEmpty()) {
            String kind =
                    decision.reason().substring(0, Math.max(0, decision.reason().indexOf(':')));
            log.warn(
                    "coupon {}: effective issue rate {} /s (configured {}): {}",
                    couponId,
                    Math.round(decision.rate() * 10) / 10.0,
                    configured,
                    decision.reason());
            meters.counter(CUTS, "coupon", Long.toString(couponId), "reason", kind)
                    .increment();
        }
    }

    /** The coupon's configured and effective rates as gauges, while it is drained. */
    private void registerMeters(long couponId) {
        rateMeters.computeIfAbsent(couponId, id -> {
            String tag = Long.toString(id);
            return List.of(
                    Gauge.builder(
                                    "coupon.drain.rate.effective",
                                    pace,
                                    p -> p.snapshot(id).effectiveRate())
                            .description("The drainer's effective issue rate per second (follows the database)")
                            .tag("coupon", tag)
                            .register(meters),
                    Gauge.builder(
                                    "coupon.drain.rate.configured",
                                    pace,
                                    p -> p.snapshot(id).configuredRate())
                            .description("The operator's issue rate per second")
                            .tag("coupon", tag)
                            .register(meters),
                    Gauge.builder(
                                    "coupon.drain.rate.measured",
                                    pace,
                                    p -> p.snapshot(id).measuredRate())
                            .description("Issues per second as the api measures them (while there is a backlog)")
                            .tag("coupon", tag)
                            .register(meters));
        });
    }

    /**
     * Forgets the coupons no longer drained (retired): the governor's state, the estimate's, and every series tagged
     * with the coupon (its rate gauges and its rate cuts), so the meters do not grow with past events.
     */
    void retainOnly(Set<Long> live) {
        governor.retainOnly(live);
        pace.retainOnly(live);
        warned.removeIf(key -> !live.contains(Long.parseLong(key.substring(0, key.indexOf('/')))));
        rateMeters.entrySet().removeIf(entry -> {
            if (live.contains(entry.getKey())) {
                return false;
            }
            entry.getValue().forEach(meters::remove);
            meters.find(CUTS)
                    .tag("coupon", Long.toString(entry.getKey()))
                    .meters()
                    .forEach(meters::remove);
            return true;
        });
    }
}
