package com.flashcoupon.api.support;

import java.time.Duration;

/**
 * A producer interceptor (configured for every {@link ApiTest}) that can hold the broker's acknowledgements back: a
 * slow broker, seen from the drainer. Idle unless a test calls {@link #hold}; held until it calls {@link #release}
 * (a test that fails in between releases them after a minute at most, so the producer of the shared context is not
 * stuck for good).
 */
public class SlowAcks extends AckValve {

    private static final Valve VALVE = new Valve(true);

    public SlowAcks() {
        super(VALVE, Duration.ofMinutes(1));
    }

    /** Acknowledgements that arrive from now on reach the producer only once {@link #release} was called. */
    public static void hold() {
        VALVE.close();
    }

    /** Lets every held acknowledgement, and the later ones, through. */
    public static void release() {
        VALVE.open();
    }
}
