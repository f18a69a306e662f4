package com.flashcoupon.api.admission;

/** What the admission script answered for one member. */
record Admission(Outcome outcome, long sequence, long done, int rate) {

    enum Outcome {
        MIRROR_MISSING,
        ADMITTED,
        ALREADY_ASKED,
        SOLD_OUT,
        NOT_OPEN_YET,
        CLOSED;

        static Outcome fromScript(long code) {
            return values()[(int) code];
        }
    }
}
