package com.flashcoupon.worker.notify;

import java.time.Duration;

/**
 * What one provider call came to.
 *
 * @param retryAfter the provider's {@code Retry-After}, when it sent one with a retryable answer
 */
record Delivery(Kind kind, Duration retryAfter, String detail) {

    enum Kind {
        /** The provider accepted the push. */
        DELIVERED,
        /** The token is no longer valid: drop it. */
        UNREGISTERED,
        /** 429, 5xx or an I/O error: try again later. */
        RETRY,
        /** Refused for good (a 4xx that is not about the token): trying again would not help. */
        REJECTED
    }

    static Delivery delivered() {
        return new Delivery(Kind.DELIVERED, null, "");
    }

    static Delivery unregistered(String detail) {
        return new Delivery(Kind.UNREGISTERED, null, detail);
    }

    static Delivery retry(Duration retryAfter, String detail) {
        return new Delivery(Kind.RETRY, retryAfter, detail);
    }

    static Delivery rejected(String detail) {
        return new Delivery(Kind.REJECTED, null, detail);
    }
}
