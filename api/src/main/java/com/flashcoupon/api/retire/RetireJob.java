package com.flashcoupon.api.retire;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Thin: the schedule, on a thread of its own. What settles and what retires is {@link EventRetirer}'s. */
@Component
class RetireJob {

    private final EventRetirer retirer;

    RetireJob(EventRetirer retirer) {
        this.retirer = retirer;
    }

    @Scheduled(
            fixedDelayString = "${coupon.retention.check-every:2s}",
            initialDelayString = "${coupon.retention.check-every:2s}",
            scheduler = "retireScheduler")
    void tick() {
        retirer.run();
    }
}
