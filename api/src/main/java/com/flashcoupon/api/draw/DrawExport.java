package com.flashcoupon.api.draw;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.util.List;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * {@code GET /admin/v1/coupons/{id}/draw/entrants}: every entrant of a recorded draw, one line each, in the order of
 * their ids' UTF-8 bytes (the order the entrants' digest is taken in), read from MySQL page by page as the client
 * reads, so that a draw of millions of entrants is never held in memory. Tab-separated, after a header line:
 * {@code memberId ticket place walletCouponId failureReason}, where the ticket is the lower-case hex of the entrant's
 * ticket, and an absent place (left out), wallet coupon or failure is {@code -}; a draw made with function 2 adds a
 * sixth column, the entrant's {@code pseudonym}, over which its ticket is taken.
 *
 * <p>{@code GET /public/v1/coupons/{id}/draw/entrants} is the same draw for anyone, naming nobody (function 2 only):
 * {@code pseudonym ticket place}, in ascending order of the pseudonyms (the order the entrants' root is taken in).
 */
@Service
public class DrawExport {

    static final String HEADER = "memberId\tticket\tplace\twalletCouponId\tfailureReason\n";
    static final String HEADER_2 = "memberId\tticket\tplace\twalletCouponId\tfailureReason\tpseudonym\n";
    static final String PUBLIC_HEADER = "pseudonym\tticket\tplace\n";

    /** Entrants per MySQL read. */
    static final int PAGE = 5_000;

    private final CouponRepository coupons;
    private final DrawRepository draws;
    private final BlockingIo blocking;
    private final PublicDraws publicDraws;

    DrawExport(CouponRepository coupons, DrawRepository draws, BlockingIo blocking, PublicDraws publicDraws) {
        this.coupons = coupons;
        this.draws = draws;
        this.blocking = blocking;
        this.publicDraws = publicDraws;
    }

    /**
     * The public lines, or 404 COUPON_NOT_FOUND (unknown, FIFO, not announced), or 409 DRAW_NOT_MADE (not recorded yet,
     * or made with function 1, whose list names members).
     */
    public Flux<String> publicLines(long couponId) {
        return blocking.call(() -> {
                    DrawRecord draw = publicDraws.announcedDraw(couponId);
                    if (!draw.recorded() || draw.functionVersion() == 1 || draw.seed() == null) {
                        throw ApiException.drawNotMade(couponId, true);
                    }
                    return draw;
                })
                .flatMapMany(draw -> {
                    DrawRules.Tickets tickets =
                            new DrawRules.Tickets(draw.ticketKey(), DrawRules.unhex(draw.entrantsDigest()));
                    return Flux.just(PUBLIC_HEADER)
                            .concatWith(publicPages(couponId)
                                    .concatMapIterable(page -> page)
                                    .map(entry -> entry.pseudonym()
                                            + '\t'
                                            + DrawRules.hex(tickets.of(entry.pseudonym()))
                                            + '\t'
                                            + dash(entry.place())
                                            + '\n'));
                });
    }

    private Flux<List<DrawRepository.Entry>> publicPages(long couponId) {
        return publicPage(couponId, "")
                .expand(page -> page.size() < PAGE
                        ? Mono.empty()
                        : publicPage(couponId, page.getLast().pseudonym()));
    }

    private Mono<List<DrawRepository.Entry>> publicPage(long couponId, String after) {
        return blocking.call(() -> draws.pseudonymousEntrants(couponId, after, PAGE));
    }

    /** The lines, or 404 COUPON_NOT_FOUND, or 409 DRAW_NOT_MADE (a FIFO event, or a draw not recorded yet). */
    public Flux<String> lines(long couponId) {
        return blocking.call(() -> recordedDraw(couponId)).flatMapMany(draw -> {
            DrawRules.Tickets tickets = draw.seed() == null
                    ? null
                    : new DrawRules.Tickets(draw.ticketKey(), DrawRules.unhex(draw.entrantsDigest()));
            boolean pseudonymous = draw.functionVersion() != 1;
            return Flux.just(pseudonymous ? HEADER_2 : HEADER)
                    .concatWith(pages(couponId)
                            .concatMapIterable(page -> page)
                            .map(entrant -> line(entrant, tickets, pseudonymous)));
        });
    }

    private DrawRecord recordedDraw(long couponId) {
        Coupon coupon = coupons.findById(couponId).orElseThrow(() -> ApiException.couponNotFound(couponId));
        DrawRecord draw = coupon.queueing() == Coupon.Queueing.RANDOMIZED_START
                ? draws.find(couponId).orElse(null)
                : null;
        if (draw == null || !draw.recorded()) {
            throw ApiException.drawNotMade(couponId, draw != null);
        }
        return draw;
    }

    /** Pages of entrants, each read after the previous one was taken by the client (keyset on the member id). */
    private Flux<List<DrawRepository.EntrantOutcome>> pages(long couponId) {
        return page(couponId, "")
                .expand(page -> page.size() < PAGE
                        ? Mono.empty()
                        : page(couponId, page.getLast().member()));
    }

    private Mono<List<DrawRepository.EntrantOutcome>> page(long couponId, String after) {
        return blocking.call(() -> draws.entrants(couponId, after, PAGE));
    }

    private static String line(DrawRepository.EntrantOutcome entrant, DrawRules.Tickets tickets, boolean pseudonymous) {
        String leaf = pseudonymous ? entrant.pseudonym() : entrant.member();
        return entrant.member()
                + '\t'
                + (tickets == null ? "-" : DrawRules.hex(tickets.of(leaf)))
                + '\t'
                + dash(entrant.place())
                + '\t'
                + dash(entrant.walletCouponId())
                + '\t'
                + dash(entrant.failureReason())
                + (pseudonymous ? "\t" + entrant.pseudonym() : "")
                + '\n';
    }

    private static String dash(Object value) {
        return value == null ? "-" : value.toString();
    }
}
