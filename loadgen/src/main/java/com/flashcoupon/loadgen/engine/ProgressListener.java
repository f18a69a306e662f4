package com.flashcoupon.loadgen.engine;

/** Told when a run starts and ends; reads the run's live counters in between, on its own schedule. */
public interface ProgressListener {

    ProgressListener NONE = new ProgressListener() {
        @Override
        public void started(LiveStats live) {}

        @Override
        public void finished(LiveStats live) {}
    };

    void started(LiveStats live);

    void finished(LiveStats live);
}
