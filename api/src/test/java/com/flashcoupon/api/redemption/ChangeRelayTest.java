package com.flashcoupon.api.redemption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.flashcoupon.api.support.ApiTest;
import com.flashcoupon.api.support.ApiTestBase;
import com.flashcoupon.api.support.TopicRecords;
import com.flashcoupon.contract.Topics;
import com.flashcoupon.contract.WalletChanged;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;

/**
 * The outbox's relay marks published exactly the changes it sent. A change committed while the relay's batch was on
 * its way to Kafka, with an id between the batch's first and last (an id handed out before the batch was read,
 * committed after), is not in the batch: it stays unpublished, and the next pass sends it.
 */
@ApiTest
class ChangeRelayTest extends ApiTestBase {

    @Autowired
    private ChangeRelay relay;

    @Value("${spring.kafka.bootstrap-servers}")
    private String bootstrapServers;

    private void insertChange(long id, String member) {
        jdbc.sql(
                        "INSERT INTO coupon_wallet_change (id, wallet_coupon_id, coupon_id, member_id, from_state, to_state,"
                                + " reason, actor, changed_at) VALUES (?, ?, 1, ?, 'AVAILABLE', 'USED', 'USED', 'test', NOW(3))")
                .params(id, id, member)
                .update();
    }

    private boolean published(long id) {
        return jdbc.sql("SELECT published_at IS NOT NULL FROM coupon_wallet_change WHERE id = ?")
                .param(id)
                .query(Boolean.class)
                .single();
    }

    @Test
    void shouldLeaveAChangeCommittedInsideTheBatchsRangeForTheNextPass() {
        long first = jdbc.sql("SELECT COALESCE(MAX(id), 0) + 1000 FROM coupon_wallet_change")
                .query(Long.class)
                .single();
        long inside = first + 1;
        long last = first + 2;
        AtomicBoolean held = new AtomicBoolean();
        relay.beforeMark = sent -> {
            if (sent.contains(first) && held.compareAndSet(false, true)) {
                // committed after the batch was read, before it is marked
                insertChange(inside, "n5-inside");
            }
        };
        try (var changes = new TopicRecords<>(bootstrapServers, Topics.WALLET_CHANGED, WalletChanged.class)) {
            // the batch's two changes, committed together (the one between them is not there yet)
            jdbc.sql("INSERT INTO coupon_wallet_change (id, wallet_coupon_id, coupon_id, member_id, from_state,"
                            + " to_state, reason, actor, changed_at) VALUES (?, ?, 1, 'n5-first', 'AVAILABLE', 'USED',"
                            + " 'USED', 'test', NOW(3)), (?, ?, 1, 'n5-last', 'AVAILABLE', 'USED', 'USED', 'test',"
                            + " NOW(3))")
                    .params(first, first, last, last)
                    .update();

            await().atMost(Duration.ofSeconds(30)).until(() -> published(first) && published(last));
            assertThat(held).as("the batch was held before its mark").isTrue();

            // the change committed inside the range reaches the topic, then is marked
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> !changes.matching(change -> change.changeId() == inside)
                            .isEmpty());
            await().atMost(Duration.ofSeconds(30)).until(() -> published(inside));
            assertThat(changes.matching(change -> List.of(first, inside, last).contains(change.changeId())))
                    .extracting(WalletChanged::changeId)
                    .contains(first, inside, last);
        } finally {
            relay.beforeMark = sent -> {};
        }
    }
}
