package com.flashcoupon.api.shard;

import com.flashcoupon.db.Coupon;
import java.time.Clock;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The shards' part of the mirror (docs/architecture.md, "Stock shards"): each time the event's meta is written (an
 * operator's change, a restore), an event of more than one shard has its stock dealt over them ({@link
 * ShardStock#init}; a share is set once, so dealing again never undoes a transfer) and its settings written on every
 * shard, for the admissions made there. An event of one shard costs nothing here: its stock is the meta's, as before.
 * After a Redis loss the stock is dealt from what MySQL knows ({@link ShardDeal#init}): the members the restore put
 * back hold their places, and only the rest is dealt.
 */
@Component
public class ShardMirror {

    private static final Logger log = LoggerFactory.getLogger(ShardMirror.class);

    private final ShardStock stock;

    private final Clock clock;

    ShardMirror(ShardStock stock, Clock clock) {
        this.stock = stock;
        this.clock = clock;
    }

    /** {@code gate}: the gate's settings as mirror.lua took them (GateSettings.mirrorArg). */
    public Mono<Void> deal(Coupon coupon, String gate) {
        return deal(coupon, gate, lost -> Mono.empty(), false, false);
    }

    /**
     * As above; {@code putBack} writes back the members MySQL decided whose home is one of the shards a deal found lost
     * alone ({@link ShardDeal#init}); {@code metaRestored}: mirror.lua has just written the meta anew (a restore, or a new
     * event); {@code drawn}: MySQL recorded the event's fair-start draw (each shard is then marked drawn).
     */
    public Mono<Void> deal(
            Coupon coupon,
            String gate,
            Function<Set<Integer>, Mono<Void>> putBack,
            boolean metaRestored,
            boolean drawn) {
        if (coupon.retired()) {
            return Mono.empty();
        }
        int shards = coupon.stockShards();
        if (shards <= 1 && !clock.instant().isBefore(coupon.openAt())) {
            return Mono.empty(); // one shard, and opened: the count no longer changes, nothing was dealt to undo
        }
        return stock.deal()
                .dealtShards(coupon.id())
                // dealt for another count before (changed before the event opened): that stock goes first
                .flatMap(dealt -> dealt > 0 && dealt != shards
                        ? stock.deal()
                                .reset(coupon.id(), dealt, coupon.version())
                                .doOnNext(kept -> {
                                    if (kept > 0) {
                                        log.error(
                                                "coupon {}: {} of its {} shards hold admissions and keep their stock; it now has {}",
                                                coupon.id(),
                                                kept,
                                                dealt,
                                                shards);
                                    }
                                })
                        : Mono.empty())
                .then(
                        shards > 1
                                ? stock.deal()
                                        .init(
                                                coupon.id(),
                                                shards,
                                                coupon.totalQuantity(),
                                                floor(coupon),
                                                settings(coupon, gate, drawn),
                                                putBack,
                                                metaRestored)
                                : Mono.empty());
    }

    /** The admissions MySQL knows of the event: published to Kafka or decided, the higher (as the restore counts). */
    static long floor(Coupon coupon) {
        return Math.max(coupon.publishedCount(), (long) coupon.issuedCount() + coupon.failedCount());
    }

    static ShardDeal.Settings settings(Coupon coupon, String gate, boolean drawn) {
        return new ShardDeal.Settings(
                coupon.version(),
                coupon.openAt().toEpochMilli(),
                coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli(),
                coupon.closedByOperator(),
                coupon.issueRatePerSecond(),
                coupon.announceAt() == null ? 0 : coupon.announceAt().toEpochMilli(),
                gate,
                coupon.drawAt() == null ? 0 : coupon.drawAt().toEpochMilli(),
                drawn);
    }
}
