package com.flashcoupon.api.gate;

import com.flashcoupon.api.coupon.CouponMirror;
import com.flashcoupon.contract.CouponKeys;
import java.util.List;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * {@code GET /api/v1/coupons/{id}/challenge}: a challenge of the event's difficulty, read from its Redis meta (one
 * HMGET, no MySQL: members ask it in a crowd), the event mirrored again from MySQL when Redis lost it.
 */
@Component
class Challenges {

    private final ReactiveStringRedisTemplate redis;
    private final CouponMirror mirror;
    private final ProofOfWork proofs;

    Challenges(ReactiveStringRedisTemplate redis, CouponMirror mirror, ProofOfWork proofs) {
        this.redis = redis;
        this.mirror = mirror;
        this.proofs = proofs;
    }

    Mono<ProofOfWork.Challenge> challenge(long couponId, String member) {
        return bits(couponId)
                .switchIfEmpty(
                        mirror.restoreOrNotFound(couponId).then(bits(couponId)).defaultIfEmpty(0))
                .map(bits -> proofs.challenge(couponId, member, bits));
    }

    /** The event's difficulty (0 when it asks for no proof of work); empty when Redis does not hold the event. */
    private Mono<Integer> bits(long couponId) {
        return redis.<String, String>opsForHash()
                .multiGet(CouponKeys.meta(couponId), List.of("total", "human", "bits"))
                .filter(meta -> meta.get(0) != null)
                .map(meta -> "POW".equals(meta.get(1)) && meta.get(2) != null ? Integer.parseInt(meta.get(2)) : 0);
    }
}
