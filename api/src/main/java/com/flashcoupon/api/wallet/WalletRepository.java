package com.flashcoupon.api.wallet;

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
            + " w.order_id FROM coupon_wallet w JOIN coupon c ON c.id = w.coupon_id";

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

    /**
     * Marks the coupon used by this order, in one conditional statement: only the member's own, unused, unexpired
     * coupon changes, so of concurrent uses exactly one wins.
     *
     * @return whether this call used it
     */
    boolean use(long walletCouponId, String memberId, String orderId) {
        return jdbc.sql("UPDATE coupon_wallet SET used_at = NOW(3), order_id = ?"
                                + " WHERE id = ? AND member_id = ? AND used_at IS NULL AND expires_at > NOW(3)")
                        .params(orderId, walletCouponId, memberId)
                        .update()
                == 1;
    }

    private static WalletEntry map(ResultSet rs, int row) throws SQLException {
        return new WalletEntry(
                rs.getLong(1),
                rs.getLong(2),
                rs.getString(3),
                instant(rs.getTimestamp(4)),
                instant(rs.getTimestamp(5)),
                instant(rs.getTimestamp(6)),
                rs.getString(7));
    }

    private static Instant instant(Timestamp timestamp) {
        return timestamp == null ? null : timestamp.toInstant();
    }
}
