package com.flashcoupon.bench;

/** One phase of {@code bin/bench}: measures something against the local stack and puts it into the run's results. */
@FunctionalInterface
interface Phase {

    void run(BenchRun run) throws Exception;

    /**
     * True for a phase whose figures are set against targets: the sampler then leaves the apps alone while it runs (no
     * heap scrape over HTTP, only the kernel's counters).
     */
    default boolean quiet() {
        return false;
    }
}
