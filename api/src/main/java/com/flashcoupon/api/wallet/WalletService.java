package com.flashcoupon.api.wallet;

import com.flashcoupon.api.blocking.BlockingIo;
import com.flashcoupon.api.redemption.Redemptions;
import com.flashcoupon.api.web.ApiException;
import java.util.List;
import org.springframework.stereotype.Service;
import reactor.core.publisher.Mono;

/**
 * The wallet: listing and using a coupon once. Using is the redemption's reserve and confirm in one
 * ({@link Redemptions#use}): the same order again (idempotent), another order (ALREADY_USED), expired, or not the
 * caller's (404).
 */
@Service
class WalletService {

    private final WalletRepository wallets;
    private final BlockingIo blocking;
    private final Redemptions redemptions;

    WalletService(WalletRepository wallets, BlockingIo blocking, Redemptions redemptions) {
        this.wallets = wallets;
        this.blocking = blocking;
        this.redemptions = redemptions;
    }

    Mono<List<WalletEntry>> list(String memberId) {
        return blocking.call(() -> wallets.list(memberId));
    }

    Mono<WalletEntry> use(long walletCouponId, String memberId, String orderId) {
        return blocking.call(() -> {
            redemptions.use(walletCouponId, memberId, orderId);
            return wallets.find(walletCouponId, memberId)
                    .orElseThrow(() -> ApiException.walletCouponNotFound(walletCouponId));
        });
    }
}
