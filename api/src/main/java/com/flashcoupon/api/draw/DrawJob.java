package com.flashcoupon.api.draw;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Thin: the schedule, on a thread of its own (a draw of a million entrants takes seconds). {@link DrawMaker} draws. */
@Component
class DrawJob {

    private final DrawMaker maker;

    DrawJob(DrawMaker maker) {
        this.maker = maker;
    }

    @Scheduled(fixedDelayString = "${coupon.draw.check-every:500ms}", scheduler = "drawScheduler")
    void tick() {
        maker.run();
    }
}
