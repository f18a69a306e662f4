package com.flashcoupon.api.status;

import java.time.Duration;

/**
 * How long a client that reads the status instead of holding the live stream should wait before its next read
 * ({@code X-Coupon-Poll-After}, docs/http-api.md): half the estimated wait, so the member sees the place move a few
 * times before the turn comes; until the draw for a member in a fair start's window (nothing changes for them before
 * it but the odds); within {@code [min, max]} either way. Nothing once the status is final.
 */
record PollInterval(Duration min, Duration max) {

    static final String HEADER = "X-Coupon-Poll-After";

    /** Whole seconds to wait; 0 when the status is final (there is nothing more to read). */
    long seconds(IssueStatus status, long nowMillis) {
        if (status.isFinal()) {
            return 0;
        }
        long millis;
        if (status.drawAt() != null) {
            millis = status.drawAt().toEpochMilli() - nowMillis;
        } else if (status.estimatedWaitMillis() != null) {
            millis = status.estimatedWaitMillis() / 2;
        } else if (status.estimatedWaitSeconds() != null) {
            millis = status.estimatedWaitSeconds() * 500;
        } else {
            millis = 0;
        }
        long clamped = Math.max(min.toMillis(), Math.min(max.toMillis(), millis));
        return Math.max(1, (clamped + 999) / 1000);
    }
}
