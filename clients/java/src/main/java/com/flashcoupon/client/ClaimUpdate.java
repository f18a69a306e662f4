package com.flashcoupon.client;

import java.time.Instant;

/**
 * What the app may show while a claim is under way, each time it changes.
 *
 * @param couponId the coupon
 * @param phase where the claim is: waiting for the event to open, solving a proof of work, backing off before asking
 *     again, or waiting in line (or in a draw)
 * @param position while {@link Phase#WAITING}: the place in line (null in a draw not made yet)
 * @param estimatedWaitMillis while {@link Phase#WAITING}: the estimated wait (null in a draw not made yet)
 * @param draw while the member waits for a fair start's draw: its state and odds; else null
 * @param at while {@link Phase#NOT_OPEN_YET} or {@link Phase#RETRYING}: when the client will ask again
 */
public record ClaimUpdate(long couponId, Phase phase, Long position, Long estimatedWaitMillis, Draw draw, Instant at) {

    public enum Phase {
        NOT_OPEN_YET,
        SOLVING_PROOF,
        RETRYING,
        WAITING
    }

    /**
     * A draw not made yet: {@code state} is {@code OPEN} or {@code DRAWING}; {@code chance} the odds as things stand.
     */
    public record Draw(String state, long entrants, long places, double chance, Instant drawAt) {}
}
