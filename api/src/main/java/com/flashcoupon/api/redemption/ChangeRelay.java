package com.flashcoupon.api.redemption;

import com.flashcoupon.contract.Topics;
import com.flashcoupon.contract.WalletChanged;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.kafka.core.KafkaTemplate;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactional outbox's relay: publishes the recorded wallet changes ({@code coupon_wallet_change} rows without
 * {@code published_at}) on {@code coupon.wallet.changed}, oldest first, and marks them published only once Kafka
 * acknowledged them all (exactly the rows sent). The rows are locked while they are sent, so two instances never send one batch side by side
 * and each member's changes reach the topic in order. A crash between the acknowledgement and the mark sends a batch
 * again: at least once, and consumers drop a {@code changeId} they saw.
 */
@Component
class ChangeRelay {

    private static final Logger log = LoggerFactory.getLogger(ChangeRelay.class);
    private static final int BATCH = 500;
    /** The producer's {@code delivery.timeout.ms} is 30 s; a batch not acknowledged by then is sent again. */
    private static final long ACK_WAIT_SECONDS = 30;

    private final JdbcClient jdbc;
    private final KafkaTemplate<String, Object> kafka;
    private final TransactionTemplate transaction;
    private final Counter published;
    private final AtomicLong backlog = new AtomicLong();

    /** Tests only: runs with the ids of a batch Kafka acknowledged, before the batch is marked published. */
    volatile Consumer<List<Long>> beforeMark = sent -> {};

    ChangeRelay(
            JdbcClient jdbc,
            KafkaTemplate<String, Object> kafka,
            PlatformTransactionManager transactions,
            MeterRegistry meters) {
        this.jdbc = jdbc;
        this.kafka = kafka;
        this.transaction = new TransactionTemplate(transactions);
        // record locks only: at REPEATABLE READ the locking read would also lock the gap after the last unpublished
        // row, and every redemption's INSERT of its change would wait while the relay waits for Kafka
        this.transaction.setIsolationLevel(TransactionDefinition.ISOLATION_READ_COMMITTED);
        this.published = Counter.builder("coupon.wallet.changes.published")
                .description("Wallet changes published on coupon.wallet.changed")
                .register(meters);
        meters.gauge("coupon.wallet.changes.unpublished", backlog);
    }

    @Scheduled(fixedDelayString = "${coupon.redemption.relay-every:250ms}", scheduler = "redemptionScheduler")
    void tick() {
        try {
            int sent;
            do {
                sent = relayBatch();
            } while (sent == BATCH);
        } catch (RuntimeException e) {
            log.warn("wallet changes not published yet; the relay tries again: {}", e.toString());
        }
    }

    /** One batch, in one transaction: locked, sent, acknowledged, marked. */
    int relayBatch() {
        Integer sent = transaction.execute(status -> {
            List<WalletChanged> changes = jdbc.sql("SELECT id, wallet_coupon_id, coupon_id, member_id, from_state,"
                            + " to_state, reason, redemption_id, order_id, discount, actor, changed_at"
                            + " FROM coupon_wallet_change WHERE published_at IS NULL ORDER BY id LIMIT ? FOR UPDATE")
                    .param(BATCH)
                    .query((rs, row) -> new WalletChanged(
                            rs.getLong(1),
                            rs.getLong(2),
                            rs.getLong(3),
                            rs.getString(4),
                            rs.getString(5),
                            rs.getString(6),
                            rs.getString(7),
                            rs.getObject(8, Long.class),
                            rs.getString(9),
                            rs.getObject(10, Long.class),
                            rs.getString(11),
                            rs.getTimestamp(12).getTime()))
                    .list();
            backlog.set(changes.size());
            if (changes.isEmpty()) {
                return 0;
            }
            List<CompletableFuture<?>> acks = new ArrayList<>(changes.size());
            for (WalletChanged change : changes) {
                acks.add(kafka.send(Topics.WALLET_CHANGED, change.memberId(), change));
            }
            try {
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).get(ACK_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("Kafka did not acknowledge the wallet changes", e);
            }
            List<Long> ids = changes.stream().map(WalletChanged::changeId).toList();
            beforeMark.accept(ids);
            // exactly the ids sent, never a range: a change with an id inside it may have committed after the locking
            // read (its id handed out before it), and it was not sent
            jdbc.sql("UPDATE coupon_wallet_change SET published_at = NOW(3) WHERE published_at IS NULL AND id IN ("
                            + String.join(", ", Collections.nCopies(ids.size(), "?")) + ")")
                    .params(ids)
                    .update();
            return changes.size();
        });
        published.increment(sent);
        return sent;
    }
}
