package com.flashcoupon.api.gate;

import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import java.time.Clock;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.security.oauth2.jwt.Jwt;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * {@code GET /api/v1/coupons/{id}/challenge}: a challenge of the event's difficulty (raised by the member's risk:
 * {@link RiskDifficulty}), read from its Redis meta (one
 * HMGET, no MySQL: members ask it in a crowd), the event mirrored again from MySQL when Redis lost it. Before the
 * event's {@code announceAt} it answers 404 COUPON_NOT_FOUND, exactly as for an id that does not exist (the coupon
 * read and the admission do the same), and an id MySQL does not know is remembered as such for a few seconds.
 */
@Component
class Challenges {

    private final ReactiveStringRedisTemplate redis;
    private final CouponMirror mirror;
    private final ProofOfWork proofs;
    private final RiskDifficulty risk;
    private final Clock clock;

    Challenges(
            ReactiveStringRedisTemplate redis,
            CouponMirror mirror,
            ProofOfWork proofs,
            RiskDifficulty risk,
            Clock clock) {
        this.redis = redis;
        this.mirror = mirror;
        this.proofs = proofs;
        this.risk = risk;
        this.clock = clock;
    }

    /** A challenge for the member (the token's subject), as hard as the event and the member's risk ask. */
    Mono<ProofOfWork.Challenge> challenge(long couponId, Jwt jwt) {
        String member = jwt.getSubject();
        int level = risk.level(jwt);
        // the request was charged to the member's overall allowance by the rate limit filter already
        return gate(couponId)
                .switchIfEmpty(Mono.defer(() -> mirror.restoreOrNotFound(couponId, Mono.empty())
                        // a retired event stays out of Redis: no proof of work to ask for, visible as MySQL says
                        .flatMap(coupon -> gate(couponId)
                                .defaultIfEmpty(new Gate(
                                        0,
                                        false,
                                        coupon.announceAt() == null
                                                ? 0
                                                : coupon.announceAt().toEpochMilli())))))
                .filter(gate -> gate.announceAt() <= clock.millis())
                .switchIfEmpty(Mono.error(() -> ApiException.couponNotFound(couponId)))
                .map(gate -> proofs.challenge(
                        couponId, member, risk.bits(gate.bits(), gate.argon2id(), level), gate.argon2id()));
    }

    /** The event's difficulty (0 when it asks for no proof of work) and from when members may see it (epoch ms). */
    private record Gate(int bits, boolean argon2id, long announceAt) {}

    /** The event's gate as Redis holds it; empty when Redis does not hold the event. */
    private Mono<Gate> gate(long couponId) {
        return redis.<String, String>opsForHash()
                .multiGet(CouponKeys.meta(couponId), List.of("total", "human", "bits", "announceAt"))
                .filter(meta -> meta.get(0) != null)
                .map(meta -> new Gate(
                        ("POW".equals(meta.get(1)) || "A2".equals(meta.get(1))) && meta.get(2) != null
                                ? Integer.parseInt(meta.get(2))
                                : 0,
                        "A2".equals(meta.get(1)),
                        meta.get(3) == null ? 0 : Long.parseLong(meta.get(3))));
    }
}
