package com.flashcoupon.loadgen.crowd;

/** One invariant checked after a run: its number and title in docs/architecture.md, whether it held, and what was counted. */
public record Check(String title, boolean passed, String detail) {

    public String verdict() {
        return passed ? "PASS" : "FAIL";
    }
}
