package com.flashcoupon.worker.notify;

import com.flashcoupon.db.CouponRepository;
import java.time.Duration;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code notification_delivery}: one row per (result event, device), claimed before the provider is called and
 * finished after. The row is the de-duplication: a replayed result finds it and sends nothing.
 */
class DeliveryLog {

    enum Claim {
        /** First time: this notifier sends. */
        NEW,
        /** Claimed long ago by a notifier that never finished (it died): this one sends. */
        TAKEN_OVER,
        /** Sent, dropped or rejected before: nothing to do. */
        FINISHED,
        /** Another notifier is sending it right now. */
        BUSY
    }

    private final JdbcClient jdbc;
    private final CouponRepository coupons;
    private final TransactionTemplate transaction;

    DeliveryLog(JdbcClient jdbc, CouponRepository coupons, TransactionTemplate transaction) {
        this.jdbc = jdbc;
        this.coupons = coupons;
        this.transaction = transaction;
    }

    Claim claim(String eventId, String deviceToken, long couponId, Duration claimTimeout) {
        // INSERT IGNORE, not ON DUPLICATE KEY UPDATE: Connector/J counts found rows, so a no-op update would read as 1
        int inserted = jdbc.sql("INSERT IGNORE INTO notification_delivery"
                        + " (event_id, device_token, coupon_id, state, claimed_at) VALUES (?, ?, ?, 'SENDING', NOW(3))")
                .params(eventId, deviceToken, couponId)
                .update();
        if (inserted == 1) {
            return Claim.NEW;
        }
        int taken = jdbc.sql("UPDATE notification_delivery SET claimed_at = NOW(3)"
                        + " WHERE event_id = ? AND device_token = ? AND state = 'SENDING'"
                        + " AND claimed_at < NOW(3) - INTERVAL ? MICROSECOND")
                .params(eventId, deviceToken, claimTimeout.toNanos() / 1000)
                .update();
        if (taken == 1) {
            return Claim.TAKEN_OVER;
        }
        String state = jdbc.sql("SELECT state FROM notification_delivery WHERE event_id = ? AND device_token = ?")
                .params(eventId, deviceToken)
                .query(String.class)
                .single();
        return "SENDING".equals(state) ? Claim.BUSY : Claim.FINISHED;
    }

    /** Delivered: the row is finished and the coupon's {@code notified} counter moves, in one transaction. */
    void sent(String eventId, String deviceToken, long couponId) {
        transaction.executeWithoutResult(status -> {
            if (finish(eventId, deviceToken, "SENT")) {
                coupons.addNotified(couponId, 1);
            }
        });
    }

    /** The provider does not know the token: the row is finished and the token removed from its member. */
    void dropped(String eventId, String deviceToken, String memberId) {
        transaction.executeWithoutResult(status -> {
            finish(eventId, deviceToken, "DROPPED");
            jdbc.sql("DELETE FROM member_device WHERE device_token = ? AND member_id = ?")
                    .params(deviceToken, memberId)
                    .update();
        });
    }

    /** Refused for good: finished, never retried. */
    void rejected(String eventId, String deviceToken) {
        finish(eventId, deviceToken, "REJECTED");
    }

    /** Not delivered yet (the provider kept failing): the claim is given back so that the redelivered record sends. */
    void release(String eventId, String deviceToken) {
        jdbc.sql("DELETE FROM notification_delivery WHERE event_id = ? AND device_token = ? AND state = 'SENDING'")
                .params(eventId, deviceToken)
                .update();
    }

    private boolean finish(String eventId, String deviceToken, String state) {
        return jdbc.sql("UPDATE notification_delivery SET state = ?, finished_at = NOW(3)"
                                + " WHERE event_id = ? AND device_token = ? AND state = 'SENDING'")
                        .params(state, eventId, deviceToken)
                        .update()
                == 1;
    }
}
