package com.flashcoupon.client;

import java.time.Duration;
import java.util.function.LongUnaryOperator;

/**
 * How long to wait before asking again: never sooner than the server's {@code Retry-After}, plus a full-jitter
 * exponential delay ({@code random(0, min(cap, base * 2^attempt))}). The jitter is what keeps a crowd that was refused
 * in the same second from coming back in the same second: each member lands somewhere in a window that doubles with
 * each refusal, so the retries the server sees spread out instead of arriving as one wave per {@code Retry-After}.
 *
 * @param base the jitter window of the first retry
 * @param cap the widest the window grows
 */
public record Backoff(Duration base, Duration cap) {

    public static final Backoff DEFAULT = new Backoff(Duration.ofSeconds(1), Duration.ofSeconds(30));

    /**
     * The delay before retry number {@code attempt} (0 for the first), given the server's {@code Retry-After} in
     * milliseconds (0 when there was none); {@code random} gives a uniform value in {@code [0, bound)}.
     */
    long delayMillis(int attempt, long retryAfterMillis, LongUnaryOperator random) {
        long window = base.toMillis() << Math.min(attempt, 20);
        if (window <= 0 || window > cap.toMillis()) {
            window = cap.toMillis();
        }
        long jitter = window > 0 ? random.applyAsLong(window) : 0;
        return Math.max(0, retryAfterMillis) + jitter;
    }
}
