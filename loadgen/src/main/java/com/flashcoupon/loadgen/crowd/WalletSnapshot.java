package com.flashcoupon.loadgen.crowd;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * What MySQL holds for one coupon, read once after issuance: its total quantity, its wallet rows in id order, its
 * FAILED results, the members holding more than one wallet row, and when the last wallet (and each member's) was issued
 * (UTC, as the apps write it).
 */
record WalletSnapshot(
        int totalQuantity,
        List<String> walletMembers,
        long[] requestSeqs,
        Map<String, String> failures,
        List<String> membersWithSeveralWallets,
        LocalDateTime lastIssuedAt,
        Map<String, LocalDateTime> issuedAt) {

    static WalletSnapshot load(String url, String user, String password, long couponId) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        // as the apps connect in the local profile (api.yml, api-local.yml): times in UTC, no TLS to the local server
        properties.setProperty("connectionTimeZone", "UTC");
        properties.setProperty("forceConnectionTimeZoneToSession", "true");
        properties.setProperty("allowPublicKeyRetrieval", "true");
        properties.setProperty("useSSL", "false");
        properties.setProperty("connectTimeout", "5000");
        try (Connection db = DriverManager.getConnection(url, properties)) {
            db.setReadOnly(true);
            int total;
            try (PreparedStatement q = db.prepareStatement("SELECT total_quantity FROM coupon WHERE id = ?")) {
                q.setLong(1, couponId);
                try (ResultSet rs = q.executeQuery()) {
                    if (!rs.next()) {
                        throw new SQLException("coupon " + couponId + " is not in the database");
                    }
                    total = rs.getInt(1);
                }
            }
            List<String> members = new ArrayList<>();
            List<Long> seqs = new ArrayList<>();
            LocalDateTime last = null;
            Map<String, LocalDateTime> issued = new HashMap<>();
            try (PreparedStatement q = db.prepareStatement(
                    "SELECT member_id, request_seq, issued_at FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")) {
                q.setLong(1, couponId);
                q.setFetchSize(10_000);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        members.add(rs.getString(1));
                        seqs.add(rs.getLong(2));
                        LocalDateTime issuedAt = rs.getObject(3, LocalDateTime.class);
                        issued.putIfAbsent(rs.getString(1), issuedAt);
                        if (last == null || issuedAt.isAfter(last)) {
                            last = issuedAt;
                        }
                    }
                }
            }
            Map<String, String> failures = new HashMap<>();
            try (PreparedStatement q =
                    db.prepareStatement("SELECT member_id, reason FROM coupon_issue_failure WHERE coupon_id = ?")) {
                q.setLong(1, couponId);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        failures.put(rs.getString(1), rs.getString(2));
                    }
                }
            }
            List<String> several = new ArrayList<>();
            try (PreparedStatement q = db.prepareStatement("SELECT member_id FROM coupon_wallet WHERE coupon_id = ?"
                    + " GROUP BY member_id HAVING COUNT(*) > 1")) {
                q.setLong(1, couponId);
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        several.add(rs.getString(1));
                    }
                }
            }
            return new WalletSnapshot(
                    total,
                    List.copyOf(members),
                    seqs.stream().mapToLong(Long::longValue).toArray(),
                    Map.copyOf(failures),
                    List.copyOf(several),
                    last,
                    issued);
        }
    }
}
