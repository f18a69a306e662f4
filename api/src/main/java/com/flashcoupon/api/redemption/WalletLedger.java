package com.flashcoupon.api.redemption;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The only writer of a wallet coupon's state. Each change is one conditional UPDATE (it changes the row only while it
 * is still in the state it leaves), the change's row (who, which order, when: also the outbox of
 * {@code coupon.wallet.changed}) and the event's counters, all in the caller's transaction: either all three or none.
 * Blocking; callers hold the wallet row's lock ({@link #lockWallet}) before they decide.
 */
@Repository
class WalletLedger {

    private final JdbcClient jdbc;
    private final MeterRegistry meters;

    WalletLedger(JdbcClient jdbc, MeterRegistry meters) {
        this.jdbc = jdbc;
        this.meters = meters;
    }

    /** A wallet row as the redemption paths decide on it, read with its lock held to the transaction's end. */
    record WalletRow(
            long id,
            long couponId,
            String memberId,
            WalletState stored,
            boolean pastExpiry,
            Long redemptionId,
            String orderId,
            java.time.Instant expiresAt) {

        WalletState seen() {
            return stored == WalletState.AVAILABLE && pastExpiry ? WalletState.EXPIRED : stored;
        }
    }

    /** Locks the wallet coupon (the first lock every redemption path takes, so two paths never wait on each other). */
    java.util.Optional<WalletRow> lockWallet(long walletCouponId) {
        return jdbc.sql("SELECT id, coupon_id, member_id, state, expires_at <= NOW(3), redemption_id, order_id,"
                        + " expires_at FROM coupon_wallet WHERE id = ? FOR UPDATE")
                .param(walletCouponId)
                .query((rs, row) -> new WalletRow(
                        rs.getLong(1),
                        rs.getLong(2),
                        rs.getString(3),
                        WalletState.valueOf(rs.getString(4)),
                        rs.getBoolean(5),
                        (Long) rs.getObject(6, Long.class),
                        rs.getString(7),
                        rs.getTimestamp(8).toInstant()))
                .optional();
    }

    /**
     * Applies the change: the wallet row moves only if it is still in {@code change.from()}.
     *
     * @throws IllegalStateException when it was not (a caller that holds the row's lock never sees this)
     */
    void apply(WalletChange change) {
        WalletState to = change.to();
        boolean held = to == WalletState.RESERVED || to == WalletState.USED;
        int moved = jdbc.sql("UPDATE coupon_wallet SET state = ?, redemption_id = ?,"
                        + " used_at = IF(?, COALESCE(used_at, NOW(3)), NULL), order_id = ?"
                        + " WHERE id = ? AND state = ?")
                .params(
                        to.name(),
                        held ? change.redemptionId() : null,
                        to == WalletState.USED,
                        to == WalletState.USED ? change.orderId() : null,
                        change.walletCouponId(),
                        change.from().name())
                .update();
        if (moved != 1) {
            throw new IllegalStateException("wallet coupon " + change.walletCouponId() + " was not " + change.from());
        }
        jdbc.sql("INSERT INTO coupon_wallet_change (wallet_coupon_id, coupon_id, member_id, from_state, to_state,"
                        + " reason, redemption_id, order_id, discount, actor, changed_at)"
                        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NOW(3))")
                .params(
                        change.walletCouponId(),
                        change.couponId(),
                        change.memberId(),
                        change.from().name(),
                        to.name(),
                        change.reason(),
                        change.redemptionId(),
                        change.orderId(),
                        change.discount(),
                        change.actor())
                .update();
        count(change);
        Counter counter = meters.counter("coupon.wallet.changes", "reason", change.reason(), "to", to.name());
        if (TransactionSynchronizationManager.isSynchronizationActive()) {
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    counter.increment();
                }
            });
        }
    }

    /** The event's counters move with the change (docs/http-api.md, {@code redemption}). */
    private void count(WalletChange change) {
        WalletState from = change.from();
        WalletState to = change.to();
        long discount = change.discount() == null ? 0 : change.discount();
        jdbc.sql("INSERT INTO coupon_redemption_stats (coupon_id, reserved, used, expired, restored, discount_granted)"
                        + " VALUES (?, ?, ?, ?, ?, ?) ON DUPLICATE KEY UPDATE reserved = reserved + VALUES(reserved),"
                        + " used = used + VALUES(used), expired = expired + VALUES(expired),"
                        + " restored = restored + VALUES(restored),"
                        + " discount_granted = discount_granted + VALUES(discount_granted)")
                .params(
                        change.couponId(),
                        delta(from, to, WalletState.RESERVED),
                        delta(from, to, WalletState.USED),
                        delta(from, to, WalletState.EXPIRED),
                        from == WalletState.USED && to == WalletState.AVAILABLE ? 1 : 0,
                        to == WalletState.USED ? discount : from == WalletState.USED ? -discount : 0)
                .update();
    }

    private static int delta(WalletState from, WalletState to, WalletState counted) {
        return (to == counted ? 1 : 0) - (from == counted ? 1 : 0);
    }
}
