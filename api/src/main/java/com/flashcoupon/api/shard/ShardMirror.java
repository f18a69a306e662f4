package com.flashcoupon.api.shard;

import com.flashcoupon.db.Coupon;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The shards' part of the mirror (docs/architecture.md, "Stock shards"): each time the event's meta is written (an
 * operator's change, a restore), an event of more than one shard has its stock dealt over them ({@link
 * ShardStock#init}; a share is set once, so dealing again never undoes a transfer) and its settings written on every
 * shard, for the admissions made there. An event of one shard costs nothing here: its stock is the meta's, as before.
 */
@Component
public class ShardMirror {

    private final ShardStock stock;

    ShardMirror(ShardStock stock) {
        this.stock = stock;
    }

    /** {@code gate}: the gate's settings as mirror.lua took them (GateSettings.mirrorArg). */
    public Mono<Void> deal(Coupon coupon, String gate) {
        if (coupon.stockShards() <= 1 || coupon.retired()) {
            return Mono.empty();
        }
        return stock.init(coupon.id(), coupon.stockShards(), coupon.totalQuantity(), settings(coupon, gate));
    }

    static ShardStock.Settings settings(Coupon coupon, String gate) {
        return new ShardStock.Settings(
                coupon.version(),
                coupon.openAt().toEpochMilli(),
                coupon.closeAt() == null ? 0 : coupon.closeAt().toEpochMilli(),
                coupon.closedByOperator(),
                coupon.issueRatePerSecond(),
                coupon.announceAt() == null ? 0 : coupon.announceAt().toEpochMilli(),
                gate);
    }
}
