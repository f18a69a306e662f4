package com.flashcoupon.api.drain;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Thin: the schedule, on a thread of its own. The lease per coupon lives in {@link DrainLease}. */
@Component
class DrainJob {

    private final Drainer drainer;

    DrainJob(Drainer drainer) {
        this.drainer = drainer;
    }

    @Scheduled(fixedDelayString = "${coupon.drain.tick:200ms}", scheduler = "drainScheduler")
    void tick() {
        drainer.drainAll();
    }
}
