package com.flashcoupon.api.coupon;

import com.flashcoupon.contract.CouponKeys;
import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The members MySQL knows of a coupon, read by member id a page at a time: what the restore after a Redis loss puts
 * back ({@link MemberRestore}) and what the repair of lost results writes again ({@link ResultRepair}).
 */
final class KnownMembers {

    private KnownMembers() {}

    /** A member MySQL knows: the first sequence and the result value as the worker writes it ('' for none yet). */
    record Known(String member, long sequence, String result) {}

    /** Where decided members are: wallets (ISSUED) and failures (FAILED), read by member id from the coupon's key. */
    enum Source {
        WALLETS("SELECT member_id, request_seq, id FROM coupon_wallet WHERE coupon_id = ? AND member_id > ?"
                + " ORDER BY member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) throws java.sql.SQLException {
                return CouponKeys.ISSUED_PREFIX + rs.getLong("id");
            }
        },
        FAILURES("SELECT member_id, request_seq, reason FROM coupon_issue_failure WHERE coupon_id = ?"
                + " AND member_id > ? ORDER BY member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) throws java.sql.SQLException {
                return CouponKeys.FAILED_PREFIX + rs.getString("reason");
            }
        },
        /**
         * The members a recorded draw placed that were never handed to Kafka (their sequence above everything
         * published or decided), at the sequence their place gives: accepted, so never lost with Redis. No result
         * yet: they queue above every decided member, where mirror.lua puts the cursor.
         */
        PLACED("SELECT e.member_id, d.first_sequence + e.place - 1 AS request_seq FROM coupon_draw_entrant e"
                + " JOIN coupon_draw d ON d.coupon_id = e.coupon_id JOIN coupon c ON c.id = e.coupon_id"
                + " WHERE e.coupon_id = ? AND e.member_id > ? AND e.place IS NOT NULL"
                + " AND d.drawn_at IS NOT NULL AND d.first_sequence IS NOT NULL"
                + " AND d.first_sequence + e.place - 1 > GREATEST(c.published_count,"
                + " COALESCE((SELECT MAX(w.request_seq) FROM coupon_wallet w WHERE w.coupon_id = e.coupon_id), 0),"
                + " COALESCE((SELECT MAX(f.request_seq) FROM coupon_issue_failure f WHERE f.coupon_id = e.coupon_id),"
                + " 0)) ORDER BY e.member_id LIMIT ?") {
            @Override
            String result(java.sql.ResultSet rs) {
                return "";
            }
        };

        private final String sql;

        Source(String sql) {
            this.sql = sql;
        }

        abstract String result(java.sql.ResultSet rs) throws java.sql.SQLException;

        List<Known> read(JdbcClient jdbc, long couponId, String after) {
            return jdbc.sql(sql)
                    .params(couponId, after, MemberRestore.PAGE_SIZE)
                    .query((rs, row) -> new Known(rs.getString("member_id"), rs.getLong("request_seq"), result(rs)))
                    .list();
        }
    }
}
