package com.flashcoupon.api.wallet;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.web.ApiException;
import java.util.List;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * The wallet: listing and using a coupon once. Using is one conditional UPDATE, then a read decides the answer: won,
 * the same order again (idempotent), another order (ALREADY_USED), expired, or not the caller's (404).
 */
@Service
class WalletService {

    private final WalletRepository wallets;
    private final BlockingIo blocking;

    WalletService(WalletRepository wallets, BlockingIo blocking) {
        this.wallets = wallets;
        this.blocking = blocking;
    }

    Mono<List<WalletEntry>> list(String memberId) {
        return blocking.call(() -> wallets.list(memberId));
    }

    Mono<WalletEntry> use(long walletCouponId, String memberId, String orderId) {
        return blocking.call(() -> {
            boolean won = wallets.use(walletCouponId, memberId, orderId);
            WalletEntry entry = wallets.find(walletCouponId, memberId)
                    .orElseThrow(() -> ApiException.walletCouponNotFound(walletCouponId));
            if (won) {
                return entry;
            }
            if (entry.isUsed()) {
                if (orderId.equals(entry.orderId())) {
                    return entry;
                }
                throw ApiException.alreadyUsed(walletCouponId);
            }
            // not used, so the conditional update refused it for its expiry (the database's clock decides)
            throw ApiException.expired(walletCouponId, entry.expiresAt());
        });
    }
}
