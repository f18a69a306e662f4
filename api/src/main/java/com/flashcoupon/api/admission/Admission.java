package com.flashcoupon.api.admission;

/**
 * What the admission script answered for one member; {@code result} is the member's recorded result when they asked
 * before and it is decided ({@code I:<wallet id>} or {@code F:<reason>}), empty otherwise.
 */
record Admission(Outcome outcome, long sequence, long done, int rate, String result) {

    Admission(Outcome outcome, long sequence, long done, int rate) {
        this(outcome, sequence, done, rate, "");
    }

    enum Outcome {
        MIRROR_MISSING,
        ADMITTED,
        ALREADY_ASKED,
        SOLD_OUT,
        NOT_OPEN_YET,
        CLOSED,
        RATE_LIMITED,
        /** in a RANDOMIZED_START event's draw, newly: {@code sequence} is the provisional place, {@code done} drawAt */
        DRAW_ENTERED,
        /** in the draw, asked before it took place; as {@link #DRAW_ENTERED} */
        DRAW_ASKED_BEFORE;

        static Outcome fromScript(long code) {
            return values()[(int) code];
        }
    }
}
