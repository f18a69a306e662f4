package com.flashcoupon.api.shard;

import com.flashcoupon.db.Coupon;
import org.springframework.stereotype.Component;
import reactor.core.publisher.Mono;

/**
 * The shards' part of the mirror (docs/architecture.md, "Stock shards"): after every operator change, an event of more
 * than one shard has its stock dealt over them ({@link ShardStock#init}; a share is set once, so dealing again never
 * undoes a transfer). An event of one shard costs nothing here: its stock is the meta's, as before.
 */
@Component
public class ShardMirror {

    private final ShardStock stock;

    ShardMirror(ShardStock stock) {
        this.stock = stock;
    }

    public Mono<Void> deal(Coupon coupon) {
        if (coupon.stockShards() <= 1 || coupon.retired()) {
            return Mono.empty();
        }
        return stock.init(coupon.id(), coupon.stockShards(), coupon.totalQuantity());
    }
}
