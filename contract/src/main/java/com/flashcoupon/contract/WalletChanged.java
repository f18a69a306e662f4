package com.flashcoupon.contract;

/**
 * One change of a wallet coupon's state, on {@link Topics#WALLET_CHANGED}, for CRM and analytics. Published at least
 * once, in the order of {@code changeId} for each member; a consumer treats two events with one {@code changeId} as
 * one.
 *
 * @param changeId the change's id in MySQL ({@code coupon_wallet_change}): increasing, unique
 * @param fromState {@code AVAILABLE}, {@code RESERVED}, {@code USED} or {@code EXPIRED}
 * @param toState the same set
 * @param reason RESERVE, CONFIRM, RELEASE, TIME_OUT, CANCEL, USE (the member's own use) or EXPIRE
 * @param redemptionId the redemption behind the change; null for EXPIRE
 * @param orderId the order behind the change; null for EXPIRE
 * @param discount the discount of that redemption, in whole currency units; null when unknown or none
 * @param actor who made it: {@code redeemer:<sub>}, {@code member:<sub>} or {@code system:<job>}
 * @param changedAt epoch milliseconds of the change (the database's clock)
 */
public record WalletChanged(
        long changeId,
        long walletCouponId,
        long couponId,
        String memberId,
        String fromState,
        String toState,
        String reason,
        Long redemptionId,
        String orderId,
        Long discount,
        String actor,
        long changedAt) {}
