package com.flashcoupon.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * MySQL without the pipeline: the rows the worker writes, in multi-row {@code INSERT IGNORE} statements of one batch
 * each and one commit per batch (as the worker does), into a scratch table made {@code LIKE coupon_wallet} (same
 * columns and keys, no foreign key) and dropped afterwards. Also reads how issuance of a coupon went.
 */
final class RawMysql {

    static final String SCRATCH = "bench_wallet_scratch";

    private final String url;
    private final String user;
    private final String password;

    RawMysql(String url, String user, String password) {
        this.url = url + (url.contains("?") ? "&" : "?")
                + "connectionTimeZone=UTC&forceConnectionTimeZoneToSession=true&allowPublicKeyRetrieval=true"
                + "&useSSL=false";
        this.user = user;
        this.password = password;
    }

    Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }

    Results.RawInsert insert(long rows, int batch, String memberPrefix) throws SQLException {
        try (Connection c = connect();
                Statement ddl = c.createStatement()) {
            ddl.execute("DROP TABLE IF EXISTS " + SCRATCH);
            ddl.execute("CREATE TABLE " + SCRATCH + " LIKE coupon_wallet");
            try {
                c.setAutoCommit(false);
                long start = System.nanoTime();
                try (PreparedStatement full = c.prepareStatement(insertSql(batch))) {
                    for (long from = 0; from < rows; from += batch) {
                        int n = (int) Math.min(batch, rows - from);
                        if (n == batch) {
                            bind(full, from, n, memberPrefix);
                            full.executeUpdate();
                        } else {
                            try (PreparedStatement rest = c.prepareStatement(insertSql(n))) {
                                bind(rest, from, n, memberPrefix);
                                rest.executeUpdate();
                            }
                        }
                        c.commit();
                    }
                }
                double seconds = (System.nanoTime() - start) / 1e9;
                return new Results.RawInsert(rows, batch, seconds);
            } finally {
                c.setAutoCommit(true);
                ddl.execute("DROP TABLE IF EXISTS " + SCRATCH);
            }
        }
    }

    private static String insertSql(int n) {
        StringBuilder sql = new StringBuilder("INSERT IGNORE INTO " + SCRATCH
                + " (coupon_id, member_id, request_seq, issued_at, expires_at) VALUES ");
        for (int i = 0; i < n; i++) {
            sql.append(i == 0 ? "" : ",").append("(?, ?, ?, NOW(3), NOW(3) + INTERVAL ? DAY)");
        }
        return sql.toString();
    }

    private static void bind(PreparedStatement s, long from, int n, String memberPrefix) throws SQLException {
        int p = 1;
        for (int i = 0; i < n; i++) {
            s.setLong(p++, 1);
            s.setString(p++, memberPrefix + (from + i));
            s.setLong(p++, from + i + 1);
            s.setInt(p++, 30);
        }
    }

    /**
     * Wallet rows of a coupon: how many, how many were issued before {@code sinceMillis} (epoch ms), the last
     * {@code issued_at} in epoch ms (UTC), and the coupon's failures.
     */
    record Wallets(long count, long before, long lastMillis, long failures) {}

    Wallets wallets(long couponId, long sinceMillis) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT COUNT(*),"
                        + " COALESCE(SUM(UNIX_TIMESTAMP(issued_at) * 1000 < ?), 0),"
                        + " COALESCE(ROUND(UNIX_TIMESTAMP(MAX(issued_at)) * 1000), 0),"
                        + " (SELECT COUNT(*) FROM coupon_issue_failure f WHERE f.coupon_id = ?)"
                        + " FROM coupon_wallet WHERE coupon_id = ?")) {
            s.setLong(1, sinceMillis);
            s.setLong(2, couponId);
            s.setLong(3, couponId);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new Wallets(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4));
            }
        }
    }

    /**
     * Ends a fair start's window now: its times move an hour back (the event's opening and its draw's time), as if the
     * hour had passed; an operator's change then mirrors them into Redis.
     */
    void endWindow(long couponId) throws SQLException {
        try (Connection c = connect();
                PreparedStatement coupon =
                        c.prepareStatement("UPDATE coupon SET open_at = open_at - INTERVAL 1 HOUR WHERE id = ?");
                PreparedStatement draw = c.prepareStatement(
                        "UPDATE coupon_draw SET draw_at = draw_at - INTERVAL 1 HOUR WHERE coupon_id = ?")) {
            coupon.setLong(1, couponId);
            coupon.executeUpdate();
            draw.setLong(1, couponId);
            draw.executeUpdate();
        }
    }

    /** Whether a fair start's draw is recorded in MySQL (every entrant's place, the seed published). */
    boolean drawRecorded(long couponId) throws SQLException {
        try (Connection c = connect();
                PreparedStatement s =
                        c.prepareStatement("SELECT drawn_at IS NOT NULL FROM coupon_draw WHERE coupon_id = ?")) {
            s.setLong(1, couponId);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }
}
