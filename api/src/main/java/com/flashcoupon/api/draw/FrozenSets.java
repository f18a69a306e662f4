package com.flashcoupon.api.draw;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The draw job's check that a draw is made from the entrant set the window froze (docs/architecture.md, "The draw
 * job"): the set frozen in MySQL on a pass of its own, before any ticket is computed, and any set that differs refused
 * ({@code coupon_draw_refused_total}, an error line), never drawn on.
 */
final class FrozenSets {

    private static final Logger log = LoggerFactory.getLogger(FrozenSets.class);

    private final DrawRepository draws;
    private final Clock clock;
    private final Counter refused;

    FrozenSets(DrawRepository draws, Clock clock, MeterRegistry meters) {
        this.draws = draws;
        this.clock = clock;
        this.refused = Counter.builder("coupon.draw.refused")
                .description("Passes of the draw job that refused to draw on an entrant set that differs from the one"
                        + " frozen at the window's close")
                .register(meters);
    }

    /** A draw refused for a set that differs. */
    void refused() {
        refused.increment();
    }

    /**
     * Whether the entrant set Redis holds now is the set the window froze: the count draw.lua froze at the close, and
     * once the set is frozen in MySQL, its count and root. A set that differs is refused (a metric and an error line),
     * never drawn on. When the set is not frozen yet, this call freezes it and answers false: its root is public before
     * any ticket is computed, on the next pass.
     */
    boolean sameSet(long couponId, DrawRecord record, RedisDraw.State state, DrawRules.Leaves leaves) {
        List<String> entrants = leaves.inOrder();
        String root = DrawRules.hex(DrawRules.entrantsDigest(entrants));
        String refused = null;
        if (state.window() == 2 && entrants.size() != state.entrants()) {
            refused = "Redis holds " + entrants.size() + " entrants, the window froze " + state.entrants();
        } else if (record.frozen()) {
            if (record.frozenEntrants() != entrants.size()
                    || !record.frozenRoot().equals(root)) {
                refused = "Redis holds " + entrants.size() + " entrants (root " + root + "), the set frozen in MySQL "
                        + record.frozenEntrants() + " (root " + record.frozenRoot() + ")";
            }
        } else if (draws.freeze(couponId, clock.instant(), entrants.size(), root)) {
            // public from now on; the tickets are computed on the next pass, after the root was published
            log.info("coupon {}: entrant set frozen, {} entrants, root {}", couponId, entrants.size(), root);
            return false;
        } else {
            return sameSet(couponId, draws.find(couponId).orElseThrow(), state, leaves);
        }
        if (refused != null) {
            refused();
            log.error(
                    "coupon {}: draw refused: {}; nothing is drawn until an operator restores the set",
                    couponId,
                    refused);
            return false;
        }
        return true;
    }
}
