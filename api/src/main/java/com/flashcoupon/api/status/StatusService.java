package com.flashcoupon.api.status;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.coupon.RetiredCoupons;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.LuaScripts;
import java.util.List;
import java.util.Optional;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * A member's request status: Redis answers (one script), MySQL answers when Redis no longer knows the request (after a
 * Redis loss, or for a retired event, whose state is in MySQL alone), since wallets and failures are recorded there.
 */
@Service
public class StatusService {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> STATUS = RedisScript.of(LuaScripts.text("scripts/status.lua"), List.class);

    private final ReactiveStringRedisTemplate redis;
    private final JdbcClient jdbc;
    private final BlockingIo blocking;
    private final RetiredCoupons retired;

    StatusService(ReactiveStringRedisTemplate redis, JdbcClient jdbc, BlockingIo blocking, RetiredCoupons retired) {
        this.redis = redis;
        this.jdbc = jdbc;
        this.blocking = blocking;
        this.retired = retired;
    }

    /** The status, or a 404 REQUEST_NOT_FOUND problem. */
    public Mono<IssueStatus> status(long couponId, String memberId) {
        return track(couponId, memberId).map(Tracked::status);
    }

    /** The status and the admission sequence it was computed from (0 when the request is decided), or a 404. */
    Mono<Tracked> track(long couponId, String memberId) {
        if (retired.find(couponId).isPresent()) {
            return recorded(couponId, memberId)
                    .map(status -> new Tracked(status, 0))
                    .switchIfEmpty(Mono.error(() -> ApiException.requestNotFound(couponId)));
        }
        List<String> keys = List.of(
                CouponKeys.meta(couponId),
                CouponKeys.queue(couponId),
                CouponKeys.result(couponId),
                CouponKeys.done(couponId));
        return redis.execute(STATUS, keys, List.of(memberId))
                .next()
                .flatMap(reply -> number(reply, 0) == 1
                        ? Mono.just(new Tracked(fromRedis(couponId, memberId, reply), number(reply, 1)))
                        : recorded(couponId, memberId).map(status -> new Tracked(status, 0)))
                .switchIfEmpty(Mono.error(() -> ApiException.requestNotFound(couponId)));
    }

    /** A status and, while it is WAITING, the member's admission sequence. */
    record Tracked(IssueStatus status, long sequence) {}

    static IssueStatus fromRedis(long couponId, String memberId, List<?> reply) {
        String result = text(reply, 2);
        if (!result.isEmpty()) {
            return fromResult(couponId, memberId, result);
        }
        return IssueStatus.waiting(couponId, memberId, number(reply, 1), number(reply, 3), (int) number(reply, 4));
    }

    /** A final status from the member's value in the coupon's result hash ({@code I:<wallet id>} or {@code F:<reason>}). */
    static IssueStatus fromResult(long couponId, String memberId, String result) {
        if (result.startsWith(CouponKeys.ISSUED_PREFIX)) {
            return IssueStatus.issued(
                    couponId, memberId, Long.parseLong(result.substring(CouponKeys.ISSUED_PREFIX.length())));
        }
        return IssueStatus.failed(couponId, memberId, result.substring(CouponKeys.FAILED_PREFIX.length()));
    }

    /** The member's outcome as MySQL recorded it (a wallet, or a failure); empty when MySQL knows of none. */
    public Mono<IssueStatus> recorded(long couponId, String memberId) {
        return blocking.call(() -> recordedNow(couponId, memberId)).flatMap(Mono::justOrEmpty);
    }

    private Optional<IssueStatus> recordedNow(long couponId, String memberId) {
        Optional<IssueStatus> issued = jdbc.sql("SELECT id FROM coupon_wallet WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, memberId)
                .query(Long.class)
                .optional()
                .map(walletId -> IssueStatus.issued(couponId, memberId, walletId));
        if (issued.isPresent()) {
            return issued;
        }
        return jdbc.sql("SELECT reason FROM coupon_issue_failure WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, memberId)
                .query(String.class)
                .optional()
                .map(reason -> IssueStatus.failed(couponId, memberId, reason));
    }
}
