package com.flashcoupon.api.draw;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.coupon.CouponDraws;
import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.api.coupon.CouponStates;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import java.time.Clock;
import java.util.Optional;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * The public record of fair-start draws ({@link PublicDraw}): for the member view's {@code draw} and for {@code GET
 * /public/v1/coupons/{id}/draw}, which answers an event not announced yet, a FIFO event and an unknown id alike (404
 * {@code COUPON_NOT_FOUND}).
 */
@Service
public class PublicDraws implements CouponDraws {

    private final DrawRepository draws;
    private final CouponRepository coupons;
    private final CouponStates states;
    private final BlockingIo blocking;
    private final Clock clock;
    private final DrawKeys keys;

    PublicDraws(
            DrawRepository draws,
            CouponRepository coupons,
            CouponStates states,
            BlockingIo blocking,
            Clock clock,
            DrawKeys keys) {
        this.keys = keys;
        this.draws = draws;
        this.coupons = coupons;
        this.states = states;
        this.blocking = blocking;
        this.clock = clock;
    }

    @Override
    public Mono<Object> forMember(long couponId, CouponState state) {
        return blocking.call(() -> draws.find(couponId))
                .flatMap(Mono::justOrEmpty)
                .map(record -> PublicDraw.of(
                        record, record.recorded() ? null : state.draw(), clock.instant(), keys.publicKeys()));
    }

    /** The public record, or 404 COUPON_NOT_FOUND before the event's announcement, for a FIFO event or an unknown id. */
    public Mono<PublicDraw> record(long couponId) {
        return blocking.call(() -> announcedDraw(couponId))
                .flatMap(record -> record.recorded()
                        ? Mono.just(PublicDraw.of(record, null, clock.instant(), keys.publicKeys()))
                        : states.load(couponId)
                                .map(state -> PublicDraw.of(record, state.draw(), clock.instant(), keys.publicKeys())));
    }

    /** The draw of an announced fair-start event, from MySQL; a 404 problem otherwise. */
    DrawRecord announcedDraw(long couponId) {
        Optional<Coupon> coupon = coupons.findById(couponId);
        if (coupon.isEmpty()
                || coupon.get().queueing() != Coupon.Queueing.RANDOMIZED_START
                || !coupon.get().announced(clock.instant())) {
            throw ApiException.couponNotFound(couponId);
        }
        return draws.find(couponId).orElseThrow(() -> ApiException.couponNotFound(couponId));
    }
}
