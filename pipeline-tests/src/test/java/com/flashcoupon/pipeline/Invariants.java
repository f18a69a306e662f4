package com.flashcoupon.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The five invariants of docs/architecture.md, checked in MySQL for one coupon. */
final class Invariants {

    private Invariants() {}

    static void check(JdbcClient jdbc, long couponId, Set<String> accepted, int drainBatch) {
        long total = jdbc.sql("SELECT total_quantity FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
        List<String> walletMembers = jdbc.sql("SELECT member_id FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")
                .param(couponId)
                .query(String.class)
                .list();
        Set<String> failedMembers =
                new HashSet<>(jdbc.sql("SELECT member_id FROM coupon_issue_failure WHERE coupon_id = ?")
                        .param(couponId)
                        .query(String.class)
                        .list());

        // 1. wallet rows never exceed the total quantity, and the guarded counter agrees
        assertThat((long) walletMembers.size()).as("wallets within stock").isLessThanOrEqualTo(total);
        long issuedCount = jdbc.sql("SELECT issued_count FROM coupon WHERE id = ?")
                .param(couponId)
                .query(Long.class)
                .single();
        assertThat(issuedCount).as("issued_count equals wallet rows").isEqualTo(walletMembers.size());

        // 2. at most one wallet row per member
        assertThat(new HashSet<>(walletMembers)).as("no member twice").hasSize(walletMembers.size());

        // 3. every accepted request ends as exactly one wallet row or one FAILED result
        Set<String> decided = new HashSet<>(walletMembers);
        decided.addAll(failedMembers);
        assertThat(decided).as("every accepted member decided").containsAll(accepted);
        assertThat(failedMembers).as("never both issued and failed").doesNotContainAnyElementsOf(walletMembers);

        // 4. no wallet for a member who was never answered accepted
        assertThat(accepted).as("wallets only for accepted members").containsAll(walletMembers);

        // 5. issuance follows admission order, up to one drain batch
        List<Long> sequences = jdbc.sql("SELECT request_seq FROM coupon_wallet WHERE coupon_id = ? ORDER BY id")
                .param(couponId)
                .query(Long.class)
                .list();
        assertThat(worstInversion(sequences)).as("order inversion").isLessThanOrEqualTo(drainBatch);
    }

    /** How far back in admission order any wallet was written: the largest (earlier max sequence - this sequence). */
    static long worstInversion(List<Long> sequencesInIssueOrder) {
        long highest = Long.MIN_VALUE;
        long worst = 0;
        for (long sequence : sequencesInIssueOrder) {
            highest = Math.max(highest, sequence);
            worst = Math.max(worst, highest - sequence);
        }
        return worst;
    }
}
