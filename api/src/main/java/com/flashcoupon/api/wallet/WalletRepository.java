package com.flashcoupon.api.wallet;

import com.flashcoupon.api.redemption.Benefit;
import com.flashcoupon.api.redemption.WalletState;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** The member's side of {@code coupon_wallet}. Blocking: callers run it through {@code BlockingIo}. */
@Repository
class WalletRepository {

    /** A wallet is small; this only bounds a pathological one. */
    static final int MAX_ENTRIES = 1000;

    private static final String SELECT = "SELECT w.id, w.coupon_id, c.name, w.issued_at, w.expires_at, w.used_at,"
            + " w.order_id, w.state, w.expires_at <= NOW(3), b.type, b.amount, b.percent, b.max_discount,"
            + " b.min_order_amount FROM coupon_wallet w JOIN coupon c ON c.id = w.coupon_id"
            + " LEFT JOIN coupon_benefit b ON b.coupon_id = w.coupon_id";

    private final JdbcClient jdbc;

    WalletRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Newest first (wallet ids grow with issuance). */
    List<WalletEntry> list(String memberId) {
        return jdbc.sql(SELECT + " WHERE w.member_id = ? ORDER BY w.id DESC LIMIT ?")
                .params(memberId, MAX_ENTRIES)
                .query(WalletRepository::map)
                .list();
    }

    Optional<WalletEntry> find(long walletCouponId, String memberId) {
        return jdbc.sql(SELECT + " WHERE w.id = ? AND w.member_id = ?")
                .params(walletCouponId, memberId)
                .query(WalletRepository::map)
                .optional();
    }

    private static WalletEntry map(ResultSet rs, int row) throws SQLException {
        return new WalletEntry(
                rs.getLong(1),
                rs.getLong(2),
                rs.getString(3),
                instant(rs.getTimestamp(4)),
                instant(rs.getTimestamp(5)),
                instant(rs.getTimestamp(6)),
                rs.getString(7),
                WalletState.seen(rs.getString(8), rs.getBoolean(9)),
                rs.getString(10) == null
                        ? null
                        : new Benefit(
                                Benefit.Type.valueOf(rs.getString(10)),
                                rs.getObject(11, Long.class),
                                rs.getObject(12, Integer.class),
                                rs.getObject(13, Long.class),
                                rs.getLong(14)));
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
