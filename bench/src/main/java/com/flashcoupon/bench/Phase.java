package com.flashcoupon.bench;

/** One phase of {@code bin/bench}: measures something against the local stack and puts it into the run's results. */
@FunctionalInterface
interface Phase {

    void run(BenchRun run) throws Exception;
}
