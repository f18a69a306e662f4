package com.flashcoupon.db;

import java.time.Instant;

/**
 * What an operator gives to create a coupon event; validated by the api before it gets here. {@code announceAt} is from
 * when members may see it (null: from its creation).
 */
public record NewCoupon(
        String name,
        int totalQuantity,
        Instant openAt,
        Instant closeAt,
        int issueRatePerSecond,
        int validDays,
        Coupon.Queueing queueing,
        int queueingWindowSeconds,
        Instant announceAt) {

    /** An event members may see from its creation. */
    public NewCoupon(
            String name,
            int totalQuantity,
            Instant openAt,
            Instant closeAt,
            int issueRatePerSecond,
            int validDays,
            Coupon.Queueing queueing,
            int queueingWindowSeconds) {
        this(
                name,
                totalQuantity,
                openAt,
                closeAt,
                issueRatePerSecond,
                validDays,
                queueing,
                queueingWindowSeconds,
                null);
    }

    /** A first-come event. */
    public NewCoupon(
            String name, int totalQuantity, Instant openAt, Instant closeAt, int issueRatePerSecond, int validDays) {
        this(name, totalQuantity, openAt, closeAt, issueRatePerSecond, validDays, Coupon.Queueing.FIFO, 0);
    }
}
