package com.flashcoupon.api.drain;

import com.flashcoupon.api.config.ApiProperties;
import java.time.Duration;

/** The drain's settings as shipped (api.yml's defaults) for the drain's unit tests, with the tick each test wants. */
final class DrainSettings {

    private DrainSettings() {}

    /** The rate governor's: a 250 ms write bound, 3 s of lag, cuts by half, a tenth of the rate back each second. */
    static ApiProperties.Adaptive adaptive() {
        return new ApiProperties.Adaptive(
                true,
                Duration.ofMillis(250),
                Duration.ofSeconds(3),
                0.5,
                Duration.ofSeconds(2),
                Duration.ofSeconds(2),
                0.1,
                Duration.ofSeconds(1),
                1);
    }

    /** Batches of at most 1,000, a 5 s lease, the governor's settings above. */
    static ApiProperties.Drain drain(Duration tick) {
        return new ApiProperties.Drain(tick, 1000, Duration.ofSeconds(5), adaptive());
    }
}
