package com.flashcoupon.api.redemption;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.support.GeneratedKeyHolder;
import org.springframework.stereotype.Repository;

/** {@code coupon_redemption}, read with the wallet coupon's state. Blocking. */
@Repository
class RedemptionRepository {

    /** One order rarely holds more than a few coupons; this bounds a pathological one. */
    static final int MAX_PER_ORDER = 100;

    private static final String SELECT = "SELECT r.id, r.wallet_coupon_id, r.coupon_id, r.member_id, r.order_id,"
            + " r.order_amount, r.discount, r.state, w.state, w.expires_at <= NOW(3), r.reserved_at, r.expires_at,"
            + " r.confirmed_at, r.ended_at FROM coupon_redemption r JOIN coupon_wallet w ON w.id = r.wallet_coupon_id";

    private final JdbcClient jdbc;

    RedemptionRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    Optional<Redemption> find(long id) {
        return jdbc.sql(SELECT + " WHERE r.id = ?")
                .param(id)
                .query(RedemptionRepository::map)
                .optional();
    }

    /** The redemption when {@code caller} made it; empty when it does not exist or is another's. */
    Optional<Redemption> findOwned(long id, String caller) {
        return jdbc.sql(SELECT + " WHERE r.id = ? AND r.caller = ?")
                .params(id, caller)
                .query(RedemptionRepository::map)
                .optional();
    }

    /** The order's redemptions that {@code caller} made, and the member's own uses for that order id; newest first. */
    List<Redemption> findByOrder(String orderId, String caller) {
        return jdbc.sql(SELECT + " WHERE r.order_id = ? AND (r.caller = ? OR r.caller IS NULL) ORDER BY r.id DESC"
                        + " LIMIT ?")
                .params(orderId, caller, MAX_PER_ORDER)
                .query(RedemptionRepository::map)
                .list();
    }

    /** The wallet coupon a redemption is of, or empty: read without a lock, to lock the wallet row first. */
    Optional<Long> walletOf(long id) {
        return jdbc.sql("SELECT wallet_coupon_id FROM coupon_redemption WHERE id = ?")
                .param(id)
                .query(Long.class)
                .optional();
    }

    /** As {@link #walletOf(long)}, when {@code caller} made the redemption: empty when it is another's. */
    Optional<Long> walletOf(long id, String caller) {
        return jdbc.sql("SELECT wallet_coupon_id FROM coupon_redemption WHERE id = ? AND caller = ?")
                .params(id, caller)
                .query(Long.class)
                .optional();
    }

    /**
     * Who holds a wallet coupon through this redemption: its order, its amount (null for a use from the member's app)
     * and its caller (null for the member's own use).
     */
    record Holder(String orderId, Long orderAmount, String caller) {}

    Holder holder(long id) {
        return jdbc.sql("SELECT order_id, order_amount, caller FROM coupon_redemption WHERE id = ?")
                .param(id)
                .query((rs, row) -> new Holder(rs.getString(1), rs.getObject(2, Long.class), rs.getString(3)))
                .single();
    }

    /**
     * A new redemption in {@code state} RESERVED (deadline {@code ttl} from now, by the database's clock) or USED (a
     * use from the member's app: reserved and confirmed at once, no deadline), owned by {@code caller} (null for the
     * member's own use).
     */
    long insert(
            WalletLedger.WalletRow wallet,
            String orderId,
            Long orderAmount,
            Long discount,
            RedemptionState state,
            Duration ttl,
            String actor,
            String caller) {
        var keys = new GeneratedKeyHolder();
        boolean used = state == RedemptionState.USED;
        jdbc.sql(
                        "INSERT INTO coupon_redemption (wallet_coupon_id, coupon_id, member_id, order_id, order_amount,"
                                + " discount, state, reserved_at, expires_at, confirmed_at, created_by, caller) VALUES (?, ?, ?,"
                                + " ?, ?, ?, ?, NOW(3), IF(?, NULL, NOW(3) + INTERVAL ? MICROSECOND), IF(?, NOW(3), NULL), ?, ?)")
                .params(
                        wallet.id(),
                        wallet.couponId(),
                        wallet.memberId(),
                        orderId,
                        orderAmount,
                        discount,
                        state.name(),
                        used,
                        ttl == null ? 0 : ttl.toNanos() / 1000,
                        used,
                        actor,
                        caller)
                .update(keys, "id");
        return keys.getKeyAs(Number.class).longValue();
    }

    /** Moves a redemption on, only from {@code from}: confirmed (USED) or ended. */
    boolean move(long id, RedemptionState from, RedemptionState to) {
        String when = to == RedemptionState.USED ? "confirmed_at = NOW(3)" : "ended_at = NOW(3)";
        return jdbc.sql("UPDATE coupon_redemption SET state = ?, " + when + " WHERE id = ? AND state = ?")
                        .params(to.name(), id, from.name())
                        .update()
                == 1;
    }

    /** Whether a reservation's deadline has passed, by the database's clock. */
    boolean lapsed(long id) {
        return jdbc.sql("SELECT expires_at <= NOW(3) FROM coupon_redemption WHERE id = ?")
                .param(id)
                .query(Boolean.class)
                .optional()
                .orElse(false);
    }

    /** Reservations past their deadline, oldest first. */
    List<Long> lapsedReservations(int limit) {
        return jdbc.sql("SELECT id FROM coupon_redemption WHERE state = 'RESERVED' AND expires_at <= NOW(3)"
                        + " ORDER BY expires_at LIMIT ?")
                .param(limit)
                .query(Long.class)
                .list();
    }

    private static Redemption map(ResultSet rs, int row) throws SQLException {
        RedemptionState state = RedemptionState.valueOf(rs.getString(8));
        return new Redemption(
                rs.getLong(1),
                rs.getLong(2),
                rs.getLong(3),
                rs.getString(4),
                rs.getString(5),
                rs.getObject(6, Long.class),
                rs.getObject(7, Long.class),
                state,
                WalletState.seen(rs.getString(9), rs.getBoolean(10)),
                instant(rs.getTimestamp(11)),
                state == RedemptionState.RESERVED ? instant(rs.getTimestamp(12)) : null,
                instant(rs.getTimestamp(13)),
                instant(rs.getTimestamp(14)));
    }

    static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
