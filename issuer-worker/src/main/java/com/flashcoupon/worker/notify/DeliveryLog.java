package com.flashcoupon.worker.notify;

import com.flashcoupon.db.CouponRepository;
import java.time.Duration;
import java.util.UUID;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@code notification_delivery}: one row per (result event, device), claimed before the provider is called and
 * finished after. The row is the de-duplication: a replayed result finds it and sends nothing. Each claim carries the
 * claimer's token: finishing and releasing touch the row only while it is still the caller's claim, so a notifier
 * whose claim was taken over neither deletes nor finishes the new owner's.
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

    /** A fresh token for {@link #claim}: it fences this claim against later takeovers. */
    static String newClaimToken() {
        return UUID.randomUUID().toString();
    }

    Claim claim(String eventId, String deviceToken, long couponId, Duration claimTimeout, String claimToken) {
        // INSERT IGNORE, not ON DUPLICATE KEY UPDATE: Connector/J counts found rows, so a no-op update would read as 1
        int inserted = jdbc.sql("INSERT IGNORE INTO notification_delivery"
                        + " (event_id, device_token, coupon_id, state, claimed_at, claim_token)"
                        + " VALUES (?, ?, ?, 'SENDING', NOW(3), ?)")
                .params(eventId, deviceToken, couponId, claimToken)
                .update();
        if (inserted == 1) {
            return Claim.NEW;
        }
        int taken = jdbc.sql("UPDATE notification_delivery SET claimed_at = NOW(3), claim_token = ?"
                        + " WHERE event_id = ? AND device_token = ? AND state = 'SENDING'"
                        + " AND claimed_at < NOW(3) - INTERVAL ? MICROSECOND")
                .params(claimToken, eventId, deviceToken, claimTimeout.toNanos() / 1000)
                .update();
        if (taken == 1) {
            return Claim.TAKEN_OVER;
        }
        // no row: its claimer gave it back between our insert and this read; busy, and the redelivery claims it
        return jdbc.sql("SELECT state FROM notification_delivery WHERE event_id = ? AND device_token = ?")
                .params(eventId, deviceToken)
                .query(String.class)
                .optional()
                .map(state -> "SENDING".equals(state) ? Claim.BUSY : Claim.FINISHED)
                .orElse(Claim.BUSY);
    }

    /** Delivered: the row is finished and the coupon's {@code notified} counter moves, in one transaction. */
    void sent(String eventId, String deviceToken, long couponId, String claimToken) {
        transaction.executeWithoutResult(status -> {
            if (finish(eventId, deviceToken, claimToken, "SENT")) {
                coupons.addNotified(couponId, 1);
            }
        });
    }

    /** The provider does not know the token: the row is finished and the token removed from its member. */
    void dropped(String eventId, String deviceToken, String memberId, String claimToken) {
        transaction.executeWithoutResult(status -> {
            finish(eventId, deviceToken, claimToken, "DROPPED");
            jdbc.sql("DELETE FROM member_device WHERE device_token = ? AND member_id = ?")
                    .params(deviceToken, memberId)
                    .update();
        });
    }

    /** Refused for good: finished, never retried. */
    void rejected(String eventId, String deviceToken, String claimToken) {
        finish(eventId, deviceToken, claimToken, "REJECTED");
    }

    /** Not delivered yet (the provider kept failing): the claim is given back so that the redelivered record sends. */
    void release(String eventId, String deviceToken, String claimToken) {
        jdbc.sql("DELETE FROM notification_delivery"
                        + " WHERE event_id = ? AND device_token = ? AND state = 'SENDING' AND claim_token = ?")
                .params(eventId, deviceToken, claimToken)
                .update();
    }

    private boolean finish(String eventId, String deviceToken, String claimToken, String state) {
        return jdbc.sql("UPDATE notification_delivery SET state = ?, finished_at = NOW(3)"
                                + " WHERE event_id = ? AND device_token = ? AND state = 'SENDING' AND claim_token = ?")
                        .params(state, eventId, deviceToken, claimToken)
                        .update()
                == 1;
    }
}
