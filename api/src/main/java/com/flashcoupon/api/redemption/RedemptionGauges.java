package com.flashcoupon.api.redemption;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Per event, what became of its issued coupons, for the {@value #RECENT} most recent events with any redemption
 * activity (one indexed read of {@code coupon_redemption_stats} every refresh):
 *
 * <ul>
 *   <li>{@code coupon.redemption.coupons{coupon,state}}: {@code reserved}, {@code used}, {@code expired} now and
 *       {@code restored} in all;
 *   <li>{@code coupon.redemption.discount.granted{coupon}}: the discount of the coupons used now.
 * </ul>
 *
 * An event that drops out of the set loses its series, so the number of series stays bounded.
 */
@Component
class RedemptionGauges {

    static final int RECENT = 50;

    private static final Logger log = LoggerFactory.getLogger(RedemptionGauges.class);

    private final JdbcClient jdbc;
    private final MultiGauge coupons;
    private final MultiGauge discount;

    RedemptionGauges(JdbcClient jdbc, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.coupons = MultiGauge.builder("coupon.redemption.coupons")
                .description("An event's issued coupons reserved, used or expired now, and restored in all")
                .register(meters);
        this.discount = MultiGauge.builder("coupon.redemption.discount.granted")
                .description("The discount of an event's coupons used now, in whole currency units")
                .register(meters);
    }

    @Scheduled(fixedDelayString = "${coupon.metrics.gauge-refresh:2s}", scheduler = "redemptionScheduler")
    void refresh() {
        try {
            List<MultiGauge.Row<?>> counts = new ArrayList<>();
            List<MultiGauge.Row<?>> granted = new ArrayList<>();
            jdbc.sql("SELECT coupon_id, reserved, used, expired, restored, discount_granted"
                            + " FROM coupon_redemption_stats ORDER BY coupon_id DESC LIMIT ?")
                    .param(RECENT)
                    .query((rs, row) -> {
                        String coupon = Long.toString(rs.getLong(1));
                        counts.add(MultiGauge.Row.of(Tags.of("coupon", coupon, "state", "reserved"), rs.getLong(2)));
                        counts.add(MultiGauge.Row.of(Tags.of("coupon", coupon, "state", "used"), rs.getLong(3)));
                        counts.add(MultiGauge.Row.of(Tags.of("coupon", coupon, "state", "expired"), rs.getLong(4)));
                        counts.add(MultiGauge.Row.of(Tags.of("coupon", coupon, "state", "restored"), rs.getLong(5)));
                        granted.add(MultiGauge.Row.of(Tags.of("coupon", coupon), rs.getLong(6)));
                        return coupon;
                    })
                    .list();
            coupons.register(counts, true);
            discount.register(granted, true);
        } catch (RuntimeException e) {
            log.debug("redemption gauges not refreshed: {}", e.toString());
        }
    }
}
