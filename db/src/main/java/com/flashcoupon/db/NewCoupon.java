package com.flashcoupon.db;

import java.time.Instant;

/**
 * What an operator gives to create a coupon event; validated by the api before it gets here. {@code announceAt} is from
 * when members may see it (null: from its creation); {@code stockShards} how many Redis hash slots its admission state
 * is spread over (1: one, as every event before issue 35).
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
        Instant announceAt,
        int stockShards) {

    /** An event in one stock shard (one Redis hash slot). */
    public NewCoupon(
            String name,
            int totalQuantity,
            Instant openAt,
            Instant closeAt,
            int issueRatePerSecond,
            int validDays,
            Coupon.Queueing queueing,
            int queueingWindowSeconds,
            Instant announceAt) {
        this(
                name,
                totalQuantity,
                openAt,
                closeAt,
                issueRatePerSecond,
                validDays,
                queueing,
                queueingWindowSeconds,
                announceAt,
                1);
    }

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
