package com.flashcoupon.api.status;

import static com.flashcoupon.api.redis.RedisReplies.number;
import static com.flashcoupon.api.redis.RedisReplies.text;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.coupon.RetiredCoupons;
import com.flashcoupon.api.coupon.UnknownCoupons;
import com.flashcoupon.api.draw.DrawWindow;
import com.flashcoupon.api.ratelimit.RateLimits;
import com.flashcoupon.api.redis.ScriptConnection;
import com.flashcoupon.api.shard.ShardPositions;
import com.flashcoupon.api.web.ApiException;
import com.flashcoupon.contract.CouponKeys;
import com.flashcoupon.contract.FailureReason;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * A member's request status: Redis answers (one script, which also checks and charges the request's rate limits in the
 * coupon's slot, and closes a RANDOMIZED_START event's window once it is over), MySQL answers when Redis no longer knows
 * the request (after a Redis loss, or for a retired event, whose state is in MySQL alone), since wallets, failures and
 * the members a draw left out are recorded there.
 */
@Service
public class StatusService {

    private static final ScriptConnection.Script STATUS =
            ScriptConnection.Script.of(DrawWindow.withWindow(RateLimits.withLimits("scripts/status.lua")));

    private final ScriptConnection redis;
    private final RateLimits limits;
    private final JdbcClient jdbc;
    private final BlockingIo blocking;
    private final RetiredCoupons retired;
    private final IssuePace pace;

    private final UnknownCoupons unknown;

    private final MemberDraws memberDraws;
    private final EntryReceipts receipts;
    private final ShardPositions positions;

    StatusService(
            ScriptConnection redis,
            RateLimits limits,
            JdbcClient jdbc,
            BlockingIo blocking,
            RetiredCoupons retired,
            UnknownCoupons unknown,
            IssuePace pace,
            MemberDraws memberDraws,
            EntryReceipts receipts,
            ShardPositions positions) {
        this.positions = positions;
        this.receipts = receipts;
        this.memberDraws = memberDraws;
        this.unknown = unknown;
        this.pace = pace;
        this.redis = redis;
        this.limits = limits;
        this.jdbc = jdbc;
        this.blocking = blocking;
        this.retired = retired;
    }

    /** The status, or a 404 REQUEST_NOT_FOUND problem (or a 429 when the request is over a rate limit). */
    Mono<IssueStatus> status(long couponId, String memberId, ServerHttpRequest request) {
        return track(couponId, memberId, request)
                .map(Tracked::status)
                .flatMap(memberDraws::withOutcome)
                .flatMap(receipts::withReceipt);
    }

    /** The status and the admission sequence it was computed from (0 when the request is decided), or a 404. */
    Mono<Tracked> track(long couponId, String memberId, ServerHttpRequest request) {
        RateLimits.CouponLimits charged = limits.forCoupon(couponId, memberId, request);
        if (retired.find(couponId).isPresent()) {
            return limits.charge(charged)
                    .then(recorded(couponId, memberId))
                    .map(status -> new Tracked(status, 0, false))
                    .switchIfEmpty(Mono.error(() -> ApiException.requestNotFound(couponId)));
        }
        String[] keys = {
            CouponKeys.meta(couponId),
            CouponKeys.queue(couponId),
            CouponKeys.result(couponId),
            CouponKeys.done(couponId),
            charged.memberKey(),
            charged.addressKey(),
            CouponKeys.draw(couponId),
            CouponKeys.seq(couponId)
        };
        List<String> rates = charged.args();
        return redis.eval(STATUS, keys, memberId, rates.get(0), rates.get(1), rates.get(2), rates.get(3))
                .flatMap(reply -> {
                    int found = (int) number(reply, 0);
                    if (found <= 1 && reply.size() > 6 && number(reply, 6) > 1) {
                        return onShard(couponId, memberId, (int) number(reply, 6), (int) number(reply, 4));
                    }
                    return switch (found) {
                        case 1 -> Mono.just(new Tracked(fromRedis(couponId, memberId, reply), number(reply, 1), false));
                        case 2 -> Mono.error(limits.refused(number(reply, 1), number(reply, 2)));
                        case 3 -> Mono.just(new Tracked(inDraw(couponId, memberId, reply), 0, true));
                        default ->
                            (number(reply, 5) == 1
                                            ? recorded(couponId, memberId)
                                            : unknownOrRecorded(couponId, memberId, request))
                                    .map(status -> new Tracked(status, 0, false));
                    };
                })
                .switchIfEmpty(Mono.error(() -> ApiException.requestNotFound(couponId)));
    }

    /**
     * An event whose stock is in shards (docs/architecture.md, "Stock shards"): the member is read on their home shard,
     * their position counted over every shard; a member no shard knows is answered as any other (MySQL, or 404).
     */
    private Mono<Tracked> onShard(long couponId, String memberId, int shards, int rate) {
        return positions.standing(couponId, shards, memberId).flatMap(standing -> {
            if (!standing.found()) {
                return recorded(couponId, memberId).map(status -> new Tracked(status, 0, false));
            }
            ShardPositions.Draw draw = standing.draw();
            if (draw != null) {
                return Mono.just(new Tracked(inDraw(couponId, memberId, draw, rate), 0, true));
            }
            if (!standing.result().isEmpty()) {
                return Mono.just(new Tracked(fromResult(couponId, memberId, standing.result()), 0, false));
            }
            long place = standing.place().ahead() + 1;
            return Mono.just(new Tracked(
                    pace.waiting(couponId, memberId, place, standing.place().done(), rate), place, false));
        });
    }

    /**
     * Redis holds no such coupon: an id that may not exist, so the member's and the address's overall allowance is
     * charged before MySQL is asked, and an id MySQL just said it does not know is not asked about again.
     */
    private Mono<IssueStatus> unknownOrRecorded(long couponId, String memberId, ServerHttpRequest request) {
        return limits.chargeOverall(memberId, request)
                .then(Mono.defer(() -> unknown.isUnknown(couponId) ? Mono.empty() : recorded(couponId, memberId)));
    }

    /**
     * A status and, while it is WAITING, the member's admission sequence; {@code inDraw} while the member waits for a
     * RANDOMIZED_START event's draw (no sequence yet).
     */
    record Tracked(IssueStatus status, long sequence, boolean inDraw) {}

    /** status.lua's {3, entrants, drawAt, rate, places, state}: in a draw not made yet. */
    private IssueStatus inDraw(long couponId, String memberId, List<?> reply) {
        return inDraw(
                couponId,
                memberId,
                new ShardPositions.Draw(number(reply, 1), number(reply, 4), number(reply, 2), number(reply, 5) == 2),
                (int) number(reply, 3));
    }

    /** In a draw not made yet, as status.lua or the member's home shard (shard_status.lua) counts it. */
    private IssueStatus inDraw(long couponId, String memberId, ShardPositions.Draw draw, int rate) {
        return IssueStatus.inDraw(
                couponId,
                memberId,
                draw.entrants(),
                draw.places(),
                draw.closed(),
                Instant.ofEpochMilli(draw.drawAt()),
                System.currentTimeMillis(),
                pace.pace(couponId, rate));
    }

    private IssueStatus fromRedis(long couponId, String memberId, List<?> reply) {
        String result = text(reply, 2);
        if (!result.isEmpty()) {
            return fromResult(couponId, memberId, result);
        }
        return pace.waiting(couponId, memberId, number(reply, 1), number(reply, 3), (int) number(reply, 4));
    }

    /** A final status from the member's value in the coupon's result hash ({@code I:<wallet id>} or {@code F:<reason>}). */
    public static IssueStatus fromResult(long couponId, String memberId, String result) {
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
        Optional<IssueStatus> failed = jdbc.sql(
                        "SELECT reason FROM coupon_issue_failure WHERE coupon_id = ? AND member_id = ?")
                .params(couponId, memberId)
                .query(String.class)
                .optional()
                .map(reason -> IssueStatus.failed(couponId, memberId, reason));
        if (failed.isPresent()) {
            return failed;
        }
        // a member a RANDOMIZED_START event's draw left out: recorded when the draw was, told SOLD_OUT
        return jdbc.sql("SELECT COUNT(*) FROM coupon_draw_entrant WHERE coupon_id = ? AND member_id = ?"
                        + " AND place IS NULL")
                .params(couponId, memberId)
                .query(Long.class)
                .optional()
                .filter(count -> count > 0)
                .map(count -> IssueStatus.failed(couponId, memberId, FailureReason.SOLD_OUT.name()));
    }
}
