package com.flashcoupon.api.redemption;

import com.flashcoupon.api.blocking.BlockingIo;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * Each coupon's benefit ({@code coupon_benefit}). A benefit never changes once its event is created, so what this
 * instance read once it keeps (bounded): the member's coupon view shows it without a MySQL read per request.
 */
@Component
public class Benefits {

    private static final String SELECT =
            "SELECT coupon_id, type, amount, percent, max_discount, min_order_amount FROM coupon_benefit";

    private final JdbcClient jdbc;
    private final BlockingIo blocking;
    private final Cache<Long, Optional<Benefit>> known =
            Caffeine.newBuilder().maximumSize(10_000).build();

    Benefits(JdbcClient jdbc, BlockingIo blocking) {
        this.jdbc = jdbc;
        this.blocking = blocking;
    }

    /** Writes the benefit of a new event; call it in the transaction that inserts the coupon. Blocking. */
    public void insert(long couponId, Benefit benefit) {
        jdbc.sql("INSERT INTO coupon_benefit (coupon_id, type, amount, percent, max_discount, min_order_amount)"
                        + " VALUES (?, ?, ?, ?, ?, ?)")
                .params(
                        couponId,
                        benefit.type().name(),
                        benefit.amount(),
                        benefit.percent(),
                        benefit.maxDiscount(),
                        benefit.minOrderAmount())
                .update();
    }

    /** The coupon's benefit, empty when it has none; from this instance's memory after the first read. */
    public Mono<Optional<Benefit>> find(long couponId) {
        Optional<Benefit> cached = known.getIfPresent(couponId);
        return cached != null ? Mono.just(cached) : blocking.call(() -> findNow(couponId));
    }

    /**
     * Blocking. A coupon that does not exist (yet) is not remembered: a read racing its creation must not hide the
     * benefit for good. The caller asks about coupons it found.
     */
    public Optional<Benefit> findNow(long couponId) {
        Optional<Benefit> cached = known.getIfPresent(couponId);
        if (cached != null) {
            return cached;
        }
        Optional<Benefit> found = jdbc.sql(SELECT + " WHERE coupon_id = ?")
                .param(couponId)
                .query(Benefits::map)
                .optional();
        known.put(couponId, found);
        return found;
    }

    /** Blocking: the benefits of these coupons, by coupon id (absent: none). */
    public Map<Long, Benefit> findAll(Collection<Long> couponIds) {
        Map<Long, Benefit> found = new HashMap<>();
        if (couponIds.isEmpty()) {
            return found;
        }
        String in = String.join(",", couponIds.stream().map(id -> "?").toList());
        jdbc.sql(SELECT + " WHERE coupon_id IN (" + in + ")")
                .params(couponIds.toArray())
                .query((rs, row) -> found.put(rs.getLong(1), map(rs, row)))
                .list();
        return found;
    }

    private static Benefit map(ResultSet rs, int row) throws SQLException {
        return new Benefit(
                Benefit.Type.valueOf(rs.getString(2)),
                rs.getObject(3, Long.class),
                rs.getObject(4, Integer.class),
                rs.getObject(5, Long.class),
                rs.getLong(6));
    }
}
