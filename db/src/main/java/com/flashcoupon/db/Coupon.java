package com.flashcoupon.db;

import java.time.Instant;

/**
 * One row of {@code coupon}: the event as the system of record holds it.
 *
 * @param version raised by every change of the settings (and by retirement); the Redis mirror refuses older ones
 * @param settledAt when admission was over and every admitted member had a result; null before
 * @param retiredAt when MySQL took over every answer about the event and its Redis state went; null before
 * @param admittedCount admissions in all, kept at retirement (Redis counted them until then); null before
 * @param rejectedSoldOutCount sold-out refusals in all, kept at retirement; null before
 * @param admittedSeenCount the most admissions the drainer saw in Redis (base + queue size)
 * @param unknownCount admissions Redis lost before they were published, counted by restores from MySQL
 */
public record Coupon(
        long id,
        String name,
        int totalQuantity,
        Instant openAt,
        Instant closeAt,
        int issueRatePerSecond,
        int validDays,
        boolean closedByOperator,
        int issuedCount,
        int failedCount,
        int deadLetteredCount,
        int notifiedCount,
        int publishedCount,
        Instant createdAt,
        long version,
        Instant settledAt,
        Instant retiredAt,
        Integer admittedCount,
        Long rejectedSoldOutCount,
        int admittedSeenCount,
        int unknownCount) {

    public boolean retired() {
        return retiredAt != null;
    }
}
