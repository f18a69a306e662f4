package com.flashcoupon.api.admin;

import static com.flashcoupon.api.web.RequestIdFilter.logging;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.coupon.CouponState;
import com.flashcoupon.api.coupon.CouponStates;
import com.flashcoupon.api.coupon.EventList;
import com.flashcoupon.api.draw.DrawRecord;
import com.flashcoupon.api.draw.DrawRepository;
import com.flashcoupon.api.gate.GateAdmin;
import com.flashcoupon.api.redemption.Benefit;
import com.flashcoupon.api.redemption.Benefits;
import com.flashcoupon.api.redemption.RedemptionCounts;
import com.flashcoupon.api.status.IssuePace;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.api.web.ErrorCode;
import com.flashcoupon.db.Coupon;
import com.flashcoupon.db.CouponRepository;
import com.flashcoupon.db.NewCoupon;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Service;
import org.springframework.transaction.support.TransactionTemplate;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Operators' changes go to MySQL first, then to the Redis mirror, where admission and every drainer read them: a
 * change takes effect at the next admission and within one drain tick on every instance.
 */
@Service
class CouponAdminService {

    private static final Logger log = LoggerFactory.getLogger(CouponAdminService.class);
    private static final int LIST_LIMIT = 200;

    private final CouponRepository coupons;
    private final CouponMirror mirror;
    private final CouponStates states;
    private final BlockingIo blocking;
    private final Clock clock;
    private final IssuePace pace;
    private final DrawRepository draws;
    private final TransactionTemplate transaction;
    private final Benefits benefits;
    private final RedemptionCounts counts;
    private final GateAdmin gates;
    private final Duration announceLead;
    private final EventList eventList;

    CouponAdminService(
            CouponRepository coupons,
            CouponMirror mirror,
            CouponStates states,
            BlockingIo blocking,
            Clock clock,
            IssuePace pace,
            DrawRepository draws,
            TransactionTemplate transaction,
            AnnounceProperties announce,
            EventList eventList,
            GateAdmin gates,
            Benefits benefits,
            RedemptionCounts counts) {
        this.announceLead = announce.lead();
        this.eventList = eventList;
        this.gates = gates;
        this.benefits = benefits;
        this.counts = counts;
        this.pace = pace;
        this.draws = draws;
        this.transaction = transaction;
        this.coupons = coupons;
        this.mirror = mirror;
        this.states = states;
        this.blocking = blocking;
        this.clock = clock;
    }

    /**
     * A new event; a RANDOMIZED_START one gets its draw's secret seed in the same transaction, so no event ever exists
     * without the commitment it is drawn by.
     */
    Mono<AdminCouponView> create(CreateCouponRequest request) {
        var coupon = new NewCoupon(
                request.name().strip(),
                request.totalQuantity(),
                seconds(request.openAt()),
                seconds(request.closeAt()),
                request.issueRatePerSecond(),
                request.validDaysOrDefault(),
                request.queueingOrDefault(),
                request.queueingWindowSecondsOrZero(),
                request.announceAt() != null
                        ? seconds(request.announceAt())
                        : seconds(request.openAt()).minus(announceLead),
                request.stockShardsOrDefault());
        return blocking.call(() -> {
                    Long created = transaction.execute(status -> {
                        long id = coupons.insert(coupon);
                        if (coupon.queueing() == Coupon.Queueing.RANDOMIZED_START) {
                            draws.create(id, coupon.openAt().plusSeconds(coupon.queueingWindowSeconds()));
                        }
                        gates.create(id, request.gate());
                        if (request.benefit() != null) {
                            benefits.insert(id, request.benefit());
                        }
                        return id;
                    });
                    eventList.changed(); // committed: every instance's drainer lists it at its next tick
                    return created;
                })
                .handle(logging(id -> log.info(
                        "coupon {} created: {} of '{}', {}",
                        id,
                        coupon.totalQuantity(),
                        coupon.name(),
                        coupon.queueing())))
                .flatMap(this::remirror);
    }

    Flux<AdminCouponView> list() {
        return blocking.call(() -> {
                    List<Coupon> recent = coupons.findRecent(LIST_LIMIT);
                    List<Long> ids = recent.stream().map(Coupon::id).toList();
                    Map<Long, DrawRecord> drawn = draws.findAll(ids);
                    Map<Long, Benefit> worth = benefits.findAll(ids);
                    Map<Long, RedemptionCounts.Counts> redeemed = counts.findAll(ids);
                    return recent.stream()
                            .map(coupon -> new Listed(
                                    coupon,
                                    drawn.get(coupon.id()),
                                    worth.get(coupon.id()),
                                    redeemed.getOrDefault(coupon.id(), RedemptionCounts.none())))
                            .toList();
                })
                .flatMapMany(Flux::fromIterable)
                .concatMap(listed -> states.load(listed.coupon().id())
                        .map(state -> view(listed.coupon(), state, listed.draw())
                                .withRedemption(listed.benefit(), listed.counts())));
    }

    private record Listed(Coupon coupon, DrawRecord draw, Benefit benefit, RedemptionCounts.Counts counts) {}

    Mono<AdminCouponView> get(long id) {
        return find(id).flatMap(this::view);
    }

    /** The coupon with its live state and, for a RANDOMIZED_START event, its draw. */
    private Mono<AdminCouponView> view(Coupon coupon) {
        Mono<DrawRecord> draw = coupon.queueing() == Coupon.Queueing.RANDOMIZED_START
                ? blocking.call(() -> draws.find(coupon.id())).flatMap(Mono::justOrEmpty)
                : Mono.empty();
        Mono<Listed> redemption = blocking.call(() -> new Listed(
                coupon,
                null,
                benefits.findAll(List.of(coupon.id())).get(coupon.id()),
                counts.findAll(List.of(coupon.id())).getOrDefault(coupon.id(), RedemptionCounts.none())));
        return draw.map(Optional::of)
                .defaultIfEmpty(Optional.empty())
                .zipWith(redemption)
                .flatMap(found -> states.load(coupon.id())
                        .map(state -> view(coupon, state, found.getT1().orElse(null))
                                .withRedemption(
                                        found.getT2().benefit(), found.getT2().counts())));
    }

    private AdminCouponView view(Coupon coupon, CouponState state, DrawRecord draw) {
        return AdminCouponView.of(coupon, state, pace.snapshot(coupon.id()), draw);
    }

    Mono<AdminCouponView> patch(long id, PatchCouponRequest request) {
        return findChangeable(id)
                .flatMap(coupon -> {
                    // compared as stored: whole seconds, so a stored closeAt is never equal to openAt or drawAt
                    Instant closeAt = seconds(request.closeAt());
                    if (closeAt != null && !closeAt.isAfter(coupon.openAt())) {
                        return Mono.error(
                                ApiException.invalid("closeAt must be after openAt (" + coupon.openAt() + ")."));
                    }
                    if (closeAt != null && coupon.drawAt() != null && !closeAt.isAfter(coupon.drawAt())) {
                        return Mono.error(ApiException.invalid(
                                "closeAt must be after the queueing window's draw (" + coupon.drawAt() + ")."));
                    }
                    if (request.stockShards() != null && !clock.instant().isBefore(coupon.openAt())) {
                        return Mono.error(alreadyOpen(coupon));
                    }
                    return blocking.run(() -> {
                        // the shards first, refused by the database's clock once the event opened: then nothing changes
                        if (request.stockShards() != null && !coupons.updateStockShards(id, request.stockShards())) {
                            throw coupons.findById(id).map(Coupon::retired).orElse(true)
                                    ? ApiException.retired(id)
                                    : alreadyOpen(coupon);
                        }
                        // each update refuses a retired row: a retirement that committed since our read wins
                        if (request.issueRatePerSecond() != null
                                && !coupons.updateRate(id, request.issueRatePerSecond())) {
                            throw ApiException.retired(id);
                        }
                        if (request.closeAt() != null && !coupons.updateCloseAt(id, seconds(request.closeAt()))) {
                            throw ApiException.retired(id);
                        }
                    });
                })
                .thenReturn(id)
                .handle(logging(changed -> log.info("coupon {} changed: {}", changed, request)))
                .then(remirror(id));
    }

    /** 409 ALREADY_OPEN: an open event's admission state already lives in its shards. */
    private static ApiException alreadyOpen(Coupon coupon) {
        return ApiException.of(
                ErrorCode.ALREADY_OPEN,
                "Coupon " + coupon.id() + " opened at " + coupon.openAt() + "; its stockShards no longer change.");
    }

    Mono<AdminCouponView> close(long id) {
        return findChangeable(id)
                .flatMap(coupon -> blocking.run(() -> {
                    if (!coupons.close(id, clock.instant())) {
                        throw ApiException.retired(id); // retired since our read of the row
                    }
                }))
                .thenReturn(id)
                .handle(logging(closed -> log.info("coupon {} closed by an operator", closed)))
                .then(remirror(id));
    }

    private Mono<AdminCouponView> remirror(long id) {
        return find(id).flatMap(coupon -> mirror.mirror(coupon).then(view(coupon)));
    }

    /** The coupon, unless it is retired: a retired event's settings no longer change (409 RETIRED). */
    private Mono<Coupon> findChangeable(long id) {
        return find(id).flatMap(coupon -> coupon.retired() ? Mono.error(ApiException.retired(id)) : Mono.just(coupon));
    }

    private Mono<Coupon> find(long id) {
        return blocking.call(() -> coupons.findById(id))
                .flatMap(Mono::justOrEmpty)
                .switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(id)));
    }

    /** Coupon windows are whole seconds (MariaDB drops fractions of bound timestamps; nobody needs them here). */
    static Instant seconds(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.SECONDS);
    }
}
