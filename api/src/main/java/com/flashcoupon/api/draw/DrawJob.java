package com.flashcoupon.api.draw;

import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/** Thin: the schedule, on a thread of its own (a draw of a million entrants takes seconds). {@link DrawMaker} draws. */
@Component
class DrawJob {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(DrawJob.class);

    private final DrawMaker maker;
    private final DrawRepository draws;
    private volatile boolean sealed;

    DrawJob(DrawMaker maker, DrawRepository draws) {
        this.maker = maker;
        this.draws = draws;
    }

    @Scheduled(fixedDelayString = "${coupon.draw.check-every:500ms}", scheduler = "drawScheduler")
    void tick() {
        if (!sealed) {
            // seeds kept in plain text before seeds were sealed: sealed before any draw is made (once per start)
            try {
                int count = draws.sealPlainSeeds();
                if (count > 0) {
                    log.info("sealed {} plain draw seeds with COUPON_DRAW_SEED_KEY", count);
                }
                sealed = true;
            } catch (RuntimeException e) {
                log.warn("sealing plain draw seeds failed; retried on the next pass: {}", e.toString());
            }
        }
        maker.run();
    }
}
