package com.flashcoupon.worker.issue;

import com.flashcoupon.contract.FailureReason;
import com.flashcoupon.contract.IssueRequested;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/**
 * The worker's statements on {@code coupon_wallet} and {@code coupon_issue_failure}. Inserts are one multi-row
 * {@code INSERT IGNORE} each, built by hand: unlike a JDBC batch (rewritten or not) the single statement reports how
 * many rows it really inserted, which the guarded counters need. Timestamps come from the server ({@code NOW(3)}):
 * the driver drops fractions of bound timestamps when talking to MariaDB.
 */
@Repository
class IssueRepository {

    private final JdbcClient jdbc;

    IssueRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Members that already have a wallet or a failure for this coupon. */
    Set<String> decidedMembers(long couponId, Collection<String> members) {
        if (members.isEmpty()) {
            return Set.of();
        }
        String in = placeholders(members.size());
        List<Object> params = new ArrayList<>();
        params.add(couponId);
        params.addAll(members);
        params.add(couponId);
        params.addAll(members);
        return new HashSet<>(jdbc.sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ? AND member_id IN " + in
                        + " UNION ALL SELECT member_id FROM coupon_issue_failure WHERE coupon_id = ? AND member_id IN "
                        + in)
                .params(params)
                .query(String.class)
                .list());
    }

    /** Writes wallets in list order (so wallet ids follow it); returns the rows really inserted. */
    int insertWallets(long couponId, List<IssueRequested> requests, int validDays) {
        return insertAll(
                "INSERT IGNORE INTO coupon_wallet (coupon_id, member_id, request_seq, issued_at, expires_at) VALUES ",
                "(?, ?, ?, NOW(3), NOW(3) + INTERVAL ? DAY)",
                requests,
                request -> List.of(couponId, request.memberId(), request.sequence(), validDays));
    }

    /** Records FAILED requests; returns the rows really inserted (a member already failed is skipped). */
    int insertFailures(long couponId, List<IssueRequested> requests, FailureReason reason) {
        return insertAll(
                "INSERT IGNORE INTO coupon_issue_failure (coupon_id, member_id, request_seq, reason, failed_at) VALUES ",
                "(?, ?, ?, ?, NOW(3))",
                requests,
                request -> List.of(couponId, request.memberId(), request.sequence(), reason.name()));
    }

    /** The wallet or failure of each of these members that has one. */
    Map<String, Decision> decisions(long couponId, Collection<String> members) {
        if (members.isEmpty()) {
            return Map.of();
        }
        String in = placeholders(members.size());
        List<Object> params = new ArrayList<>();
        params.add(couponId);
        params.addAll(members);
        params.add(couponId);
        params.addAll(members);
        Map<String, Decision> decisions = new HashMap<>();
        jdbc.sql("SELECT member_id, id, NULL AS reason, issued_at AS decided_at, request_seq FROM coupon_wallet"
                        + " WHERE coupon_id = ? AND member_id IN " + in
                        + " UNION ALL SELECT member_id, NULL, reason, failed_at, request_seq FROM coupon_issue_failure"
                        + " WHERE coupon_id = ? AND member_id IN " + in)
                .params(params)
                .query((rs, row) -> {
                    String member = rs.getString("member_id");
                    long decidedAt = rs.getTimestamp("decided_at").toInstant().toEpochMilli();
                    String reason = rs.getString("reason");
                    long sequence = rs.getLong("request_seq");
                    return reason == null
                            ? Decision.issued(member, rs.getLong("id"), decidedAt, sequence)
                            : Decision.failed(member, FailureReason.valueOf(reason), decidedAt, sequence);
                })
                .list()
                .forEach(decision -> decisions.put(decision.memberId(), decision));
        return decisions;
    }

    private int insertAll(
            String insert, String row, List<IssueRequested> requests, Function<IssueRequested, List<?>> values) {
        if (requests.isEmpty()) {
            return 0;
        }
        StringBuilder sql = new StringBuilder(insert.length() + requests.size() * (row.length() + 1));
        sql.append(insert);
        List<Object> params = new ArrayList<>(requests.size() * 4);
        for (int i = 0; i < requests.size(); i++) {
            sql.append(i == 0 ? "" : ",").append(row);
            params.addAll(values.apply(requests.get(i)));
        }
        return jdbc.sql(sql.toString()).params(params).update();
    }

    private static String placeholders(int n) {
        return "(" + "?,".repeat(n - 1) + "?)";
    }
}
