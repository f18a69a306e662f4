package com.flashcoupon.db;

import java.time.Instant;

/** What an operator gives to create a coupon event; validated by the api before it gets here. */
public record NewCoupon(
        String name, int totalQuantity, Instant openAt, Instant closeAt, int issueRatePerSecond, int validDays) {}
