package com.flashcoupon.api.status;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.draw.DrawRecord;
import com.flashcoupon.api.draw.DrawRepository;
import com.flashcoupon.api.draw.DrawRules;
import com.flashcoupon.api.draw.PublicDraw;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * A member's own line of a made fair-start draw (function 2) in their status ({@code GET .../issue-requests/me} and
 * the live stream's final event): {@code draw.ticket}, {@code draw.pseudonym}, {@code draw.place} or {@code
 * draw.leftOut}, and {@code draw.record}, the public record's path. A recorded draw never changes, so it is kept once
 * read; so is the answer that an event has no draw. The member's row is one primary-key read.
 */
@Service
public class MemberDraws {

    /** Events remembered at most; the map is emptied when it is full (each entry is read again once). */
    private static final int REMEMBERED = 10_000;

    private final DrawRepository draws;
    private final BlockingIo blocking;
    private final Map<Long, Optional<DrawRecord>> settled = new ConcurrentHashMap<>();

    MemberDraws(DrawRepository draws, BlockingIo blocking) {
        this.draws = draws;
        this.blocking = blocking;
    }

    /** The status with the member's line of the draw when the event's draw is made with function 2; else as it is. */
    public Mono<IssueStatus> withOutcome(IssueStatus status) {
        if (status.draw() != null) {
            return Mono.just(status); // still waiting for the draw: its odds
        }
        Optional<DrawRecord> known = settled.get(status.couponId());
        if (known != null && known.isEmpty()) {
            return Mono.just(status);
        }
        return blocking.call(() -> line(status, known)).onErrorReturn(status);
    }

    private IssueStatus line(IssueStatus status, Optional<DrawRecord> known) {
        DrawRecord draw =
                known != null ? known.get() : settle(status.couponId()).orElse(null);
        if (draw == null || draw.functionVersion() == 1 || draw.seed() == null) {
            return status;
        }
        return draws.entry(status.couponId(), status.memberId())
                .filter(entry -> entry.pseudonym() != null)
                .map(entry -> status.withDraw(IssueStatus.DrawOdds.made(
                        draw.entrants(),
                        draw.placed(),
                        DrawRules.hex(DrawRules.ticket(
                                draw.ticketKey(), DrawRules.unhex(draw.entrantsDigest()), entry.pseudonym())),
                        entry.pseudonym(),
                        entry.place(),
                        PublicDraw.path(status.couponId()))))
                .orElse(status);
    }

    /** The event's draw once it is settled (recorded, or none at all), remembered; empty while it is not recorded. */
    private Optional<DrawRecord> settle(long couponId) {
        Optional<DrawRecord> draw = draws.find(couponId);
        if (draw.isEmpty() || draw.get().recorded()) {
            if (settled.size() >= REMEMBERED) {
                settled.clear();
            }
            settled.put(couponId, draw);
        }
        return draw.filter(DrawRecord::recorded);
    }
}
