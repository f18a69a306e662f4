package com.flashcoupon.api.admission;

/**
 * What the admission script answered for one member; {@code result} is the member's recorded result when they asked
 * before and it is decided ({@code I:<wallet id>} or {@code F:<reason>}), empty otherwise; {@code places} is set for
 * the draw's outcomes only.
 */
record Admission(Outcome outcome, long sequence, long done, int rate, String result, long places) {
    // for ADMITTED, places carries the gate's COUNT_ONLY flags instead (admit.lua's e: 1 list, 2 claims)

    Admission(Outcome outcome, long sequence, long done, int rate) {
        this(outcome, sequence, done, rate, "", 0);
    }

    Admission(Outcome outcome, long sequence, long done, int rate, String result) {
        this(outcome, sequence, done, rate, result, 0);
    }

    /** The draw's window is closed and the draw is being made ({@link Outcome#DRAW_ASKED_BEFORE} only). */
    boolean drawing() {
        return DRAWING.equals(result);
    }

    static final String DRAWING = "DRAWING";

    enum Outcome {
        MIRROR_MISSING,
        ADMITTED,
        ALREADY_ASKED,
        SOLD_OUT,
        NOT_OPEN_YET,
        CLOSED,
        RATE_LIMITED,
        /**
         * in a RANDOMIZED_START event's draw, newly (within its window): {@code sequence} is the number of entrants so
         * far, {@code done} drawAt, {@code places} how many places the draw would give them now
         */
        DRAW_ENTERED,
        /**
         * in the draw, asked before it was made; as {@link #DRAW_ENTERED}, with {@code result} {@code "DRAWING"} once
         * the window is closed (the entrants and places it froze)
         */
        DRAW_ASKED_BEFORE,
        /** before the event's announceAt: answered as for a coupon that does not exist (admit.lua's 9) */
        NOT_ANNOUNCED,
        /** refused by the gate (gate.lua, issue 26): {@code sequence} is the reason */
        GATE_REFUSED,
        /**
         * the event's stock is in shards (admit.lua's 11): {@code sequence} is their count; nothing was charged, and the
         * member is admitted on their home shard ({@link ShardAdmissions})
         */
        SHARDED;

        static Outcome fromScript(long code) {
            return values()[(int) code];
        }
    }
}
