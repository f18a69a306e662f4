package com.flashcoupon.worker.notify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.flashcoupon.contract.IssueResult;
import com.flashcoupon.db.CouponRepository;
import com.flashcoupon.db.TestDatabase;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Claims against the real database: a notifier whose claim was taken over (it was too slow, not dead) can neither
 * give back nor finish the new owner's claim.
 */
class DeliveryLogTest {

    private static final Duration EXPIRED_AT_ONCE = Duration.ZERO;
    private static final Duration CLAIM_TIMEOUT = Duration.ofSeconds(60);

    private static TestDatabase database;
    private static JdbcClient jdbc;
    private static DeliveryLog deliveries;

    @BeforeAll
    static void migrate() {
        database = TestDatabase.create();
        var dataSource = database.migratedDataSource();
        jdbc = JdbcClient.create(dataSource);
        deliveries = new DeliveryLog(
                jdbc,
                new CouponRepository(jdbc),
                new TransactionTemplate(new DataSourceTransactionManager(dataSource)));
    }

    @AfterAll
    static void drop() {
        database.close();
    }

    private static String state(String eventId) {
        return jdbc.sql("SELECT state FROM notification_delivery WHERE event_id = ?")
                .param(eventId)
                .query(String.class)
                .optional()
                .orElse("none");
    }

    /** The first notifier claims, stalls past the claim's time-out, and a second one takes the claim over. */
    private static String takenOver(String eventId, String first, String second) throws InterruptedException {
        assertThat(deliveries.claim(eventId, "device-1", 7, CLAIM_TIMEOUT, first))
                .isEqualTo(DeliveryLog.Claim.NEW);
        Thread.sleep(5);
        assertThat(deliveries.claim(eventId, "device-1", 7, EXPIRED_AT_ONCE, second))
                .isEqualTo(DeliveryLog.Claim.TAKEN_OVER);
        return eventId;
    }

    @Test
    void shouldKeepTheNewOwnersClaimWhenTheOldOneGivesItsClaimBack() throws InterruptedException {
        String eventId = takenOver("7:release", "first", "second");

        deliveries.release(eventId, "device-1", "first");

        assertThat(state(eventId)).isEqualTo("SENDING");
        assertThat(deliveries.claim(eventId, "device-1", 7, CLAIM_TIMEOUT, "third"))
                .as("a third notifier must wait for the owner")
                .isEqualTo(DeliveryLog.Claim.BUSY);
        deliveries.release(eventId, "device-1", "second");
        assertThat(state(eventId)).isEqualTo("none");
    }

    @Test
    void shouldLetOnlyTheCurrentOwnerFinishTheClaim() throws InterruptedException {
        String eventId = takenOver("7:finish", "first", "second");

        deliveries.rejected(eventId, "device-1", "first");
        assertThat(state(eventId)).isEqualTo("SENDING");

        deliveries.rejected(eventId, "device-1", "second");
        assertThat(state(eventId)).isEqualTo("REJECTED");
    }

    @Test
    void shouldHandTheRecordBackOnceItsPushBudgetIsSpentAndFinishTheRestAtTheRedelivery() throws Exception {
        // registered newest first: pushed in that order
        List<String> tokens = List.of("slow-a", "slow-b", "slow-c");
        for (int i = 0; i < tokens.size(); i++) {
            jdbc.sql("INSERT INTO member_device (device_token, member_id, platform, updated_at)"
                            + " VALUES (?, 'm-slow', 'WEB', NOW(3) - INTERVAL ? SECOND)")
                    .params(tokens.get(i), i)
                    .update();
        }
        // a claim of 8 s and calls of up to 4 s: a budget of 4 s per record; each push takes 2.5 s, so the second push
        // of a delivery ends past the budget and no third one starts. On the test's clock: a push moves it by 2.5 s
        // instead of sleeping, so the machine's own pace (once: 1.5 s of slack) changes nothing
        var properties = PushSenderTest.properties(Duration.ofSeconds(8), Duration.ofSeconds(4));
        List<String> sent = new CopyOnWriteArrayList<>();
        AtomicLong clock = new AtomicLong(System.nanoTime());
        PushProvider slow = push -> {
            clock.addAndGet(Duration.ofMillis(2_500).toNanos());
            sent.add(push.device().token());
            return Delivery.delivered();
        };
        var notifier = new Notifier(
                new DeviceDirectory(jdbc),
                deliveries,
                new PushSender(
                        slow,
                        properties.retry(),
                        properties.requestTimeout(),
                        properties.pushBudget(),
                        p -> {},
                        PushSenderTest.ATTEMPTS),
                properties,
                new SimpleMeterRegistry(),
                clock::get);
        var result = new IssueResult("9:m-slow", 9, "m-slow", 1, IssueResult.Outcome.ISSUED, 1L, null, 0L);

        assertThatThrownBy(() -> notifier.notify(result)).isInstanceOf(PushPendingException.class);
        assertThat(sent).as("the pushes started within the budget").containsExactly("slow-a", "slow-b");
        notifier.notify(result);
        assertThat(sent).as("the redelivery sends the rest").containsExactly("slow-a", "slow-b", "slow-c");
        notifier.notify(result);
        assertThat(sent).as("a replay sends nothing more").hasSize(3);
    }
}
