package com.flashcoupon.db;

import java.time.Instant;

/** What an operator gives to create a coupon event; validated by the api before it gets here. */
public record NewCoupon(
        String name,
        int totalQuantity,
        Instant openAt,
        Instant closeAt,
        int issueRatePerSecond,
        int validDays,
        Coupon.Queueing queueing,
        int queueingWindowSeconds) {

    /** A first-come event. */
    public NewCoupon(
            String name, int totalQuantity, Instant openAt, Instant closeAt, int issueRatePerSecond, int validDays) {
        this(name, totalQuantity, openAt, closeAt, issueRatePerSecond, validDays, Coupon.Queueing.FIFO, 0);
    }
}
