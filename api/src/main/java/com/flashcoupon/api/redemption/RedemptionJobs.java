package com.flashcoupon.api.redemption;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * What time does to wallet coupons, on every instance (each change takes the row's lock and checks again, so two
 * instances never do one twice): reservations not confirmed by their deadline go back ({@code TIME_OUT}), available
 * coupons past their expiry are recorded EXPIRED, and idempotency answers older than their retention are forgotten.
 */
@Component
class RedemptionJobs {

    private static final Logger log = LoggerFactory.getLogger(RedemptionJobs.class);
    private static final int BATCH = 500;

    private final Redemptions redemptions;
    private final RedemptionRepository repository;
    private final Idempotency idempotency;
    private final JdbcClient jdbc;
    private final RedemptionProperties properties;

    RedemptionJobs(
            Redemptions redemptions,
            RedemptionRepository repository,
            Idempotency idempotency,
            JdbcClient jdbc,
            RedemptionProperties properties) {
        this.redemptions = redemptions;
        this.repository = repository;
        this.idempotency = idempotency;
        this.jdbc = jdbc;
        this.properties = properties;
    }

    @Scheduled(fixedDelayString = "${coupon.redemption.check-every:1s}", scheduler = "redemptionScheduler")
    void tick() {
        try {
            repository.lapsedReservations(BATCH).forEach(redemptions::timeOut);
            expiredCoupons().forEach(redemptions::expire);
            idempotency.forgetOlderThan(properties.idempotencyRetention().toSeconds(), BATCH);
        } catch (RuntimeException e) {
            log.warn("redemption job interrupted; it runs again: {}", e.toString());
        }
    }

    private List<Long> expiredCoupons() {
        return jdbc.sql("SELECT id FROM coupon_wallet WHERE state = 'AVAILABLE' AND expires_at <= NOW(3) LIMIT ?")
                .param(BATCH)
                .query(Long.class)
                .list();
    }
}
