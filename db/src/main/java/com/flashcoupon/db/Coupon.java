package com.flashcoupon.db;

import java.time.Instant;

/** One row of {@code coupon}: the event as the system of record holds it. */
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
        Instant createdAt) {}
