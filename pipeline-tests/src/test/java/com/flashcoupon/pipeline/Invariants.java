package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import com.flashcoupon.loadgen.crowd.Check;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;

/**
 * The five invariants of docs/architecture.md, checked in MySQL for one coupon with the checks loadgen's {@code crowd}
 * runs ({@link com.flashcoupon.loadgen.crowd.Invariants}), plus the guarded counter agreeing with the wallet rows.
 */
final class Invariants {

    private Invariants() {}

    static void check(JdbcClient jdbc, long couponId, Set<String> accepted, int drainBatch) {
        long total = jdbc.sql("SELECT total_quantity FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
        long issuedCount = jdbc.sql("SELECT issued_count FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
        List<String> walletMembers = jdbc.sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")
                .param(couponId)
                .query(String.class)
                .list();
        long[] sequences = jdbc
                .sql("SELECT request_seq FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")
                .param(couponId)
                .query(Long.class)
                .list()
                .stream()
                .mapToLong(Long::longValue)
                .toArray();
        List<String> severalWallets = jdbc.sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ?"
                        + " GROUP BY member_id HAVING COUNT(*) > 1")
                .param(couponId)
                .query(String.class)
                .list();
        Set<String> failed = new HashSet<>(jdbc.sql("SELECT member_id FROM coupon_issue_failure WHERE coupon_id = ?")
                .param(couponId)
                .query(String.class)
                .list());
        long failedAccepted = failed.stream().filter(accepted::contains).count();

        assertThat(issuedCount).as("issued_count equals wallet rows").isEqualTo(walletMembers.size());
        List<Check> checks = List.of(
                com.flashcoupon.loadgen.crowd.Invariants.walletsWithinStock(
                        walletMembers.size(), Math.toIntExact(total), accepted.size(), failedAccepted, 0),
                com.flashcoupon.loadgen.crowd.Invariants.oneWalletPerMember(severalWallets, 0),
                com.flashcoupon.loadgen.crowd.Invariants.everyAdmissionEnds(accepted, walletMembers, failed),
                com.flashcoupon.loadgen.crowd.Invariants.nothingWithoutAdmission(
                        accepted, walletMembers, failed, Set.of()),
                com.flashcoupon.loadgen.crowd.Invariants.issuanceFollowsAdmission(sequences, drainBatch));
        for (Check check : checks) {
            assertThat(check.passed()).as(check.title() + ": " + check.detail()).isTrue();
        }
    }
}
