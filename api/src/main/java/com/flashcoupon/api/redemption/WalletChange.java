package com.flashcoupon.api.redemption;

/**
 * One change of a wallet coupon's state, as {@link WalletLedger} records it and the topic carries it.
 *
 * @param reason RESERVE, CONFIRM, RELEASE, TIME_OUT, CANCEL, USE (the member's reserve and confirm in one) or EXPIRE
 * @param actor who: {@code redeemer:<sub>}, {@code member:<sub>}, or {@code system:<job>}
 */
record WalletChange(
        long walletCouponId,
        long couponId,
        String memberId,
        WalletState from,
        WalletState to,
        String reason,
        Long redemptionId,
        String orderId,
        Long discount,
        String actor) {}
