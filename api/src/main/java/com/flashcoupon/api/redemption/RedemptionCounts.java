package com.flashcoupon.api.redemption;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Component;

/**
 * Per event, what became of its issued coupons ({@code coupon_redemption_stats}, kept with each change by
 * {@link WalletLedger}), for the admin view and the console. Blocking.
 */
@Component
public class RedemptionCounts {

    /**
     * @param available issued and neither reserved, used nor expired now
     * @param reserved held by an order now
     * @param used used now (a cancelled use is no longer counted)
     * @param expired expired unused now
     * @param restored uses cancelled that made the coupon usable again, in all
     * @param discountGranted the discount of the coupons used now, in whole currency units (uses from the member's app
     *     of a PERCENT coupon count 0: no order amount is known there)
     */
    public record Counts(long available, long reserved, long used, long expired, long restored, long discountGranted) {

        static final Counts NONE = new Counts(0, 0, 0, 0, 0, 0);

        /** With {@code available} from the event's issued count. */
        public Counts ofIssued(long issued) {
            return new Counts(
                    Math.max(0, issued - reserved - used - expired),
                    reserved,
                    used,
                    expired,
                    restored,
                    discountGranted);
        }
    }

    private final JdbcClient jdbc;

    RedemptionCounts(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** By coupon id; an event nobody redeemed from has none (use {@link #none()}). */
    public Map<Long, Counts> findAll(Collection<Long> couponIds) {
        Map<Long, Counts> found = new HashMap<>();
        if (couponIds.isEmpty()) {
            return found;
        }
        String in = String.join(",", couponIds.stream().map(id -> "?").toList());
        jdbc.sql("SELECT coupon_id, reserved, used, expired, restored, discount_granted FROM coupon_redemption_stats"
                        + " WHERE coupon_id IN (" + in + ")")
                .params(couponIds.toArray())
                .query((rs, row) -> found.put(
                        rs.getLong(1),
                        new Counts(0, rs.getLong(2), rs.getLong(3), rs.getLong(4), rs.getLong(5), rs.getLong(6))))
                .list();
        return found;
    }

    public static Counts none() {
        return Counts.NONE;
    }
}
