package com.flashcoupon.api.device;

import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** {@code member_device}: push tokens. Blocking: callers run it through {@code BlockingIo}. */
@Repository
class DeviceRepository {

    /**
     * What a registration did.
     *
     * @param movedFrom the member the token belonged to before, when it was another one (the phone changed hands)
     * @param removed the member's least recently registered tokens removed to stay within the cap
     */
    record Registration(String movedFrom, int removed) {}

    private final JdbcClient jdbc;

    DeviceRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * Registers the token for the member, now: a token registered before (by anyone) now belongs to this member, and
     * its registration time is renewed. Then the member keeps the {@code maxPerMember} most recently registered tokens,
     * this one always among them; the older are removed.
     *
     * <p>Statements of their own, no transaction holding locks across them: a transaction that locked the member's rows
     * first took gap locks in the member index under REPEATABLE READ, and registrations of different members at once
     * deadlocked (NotifyPipelineTest). Two registrations of one member at once each keep their own token and trim to
     * the cap from what they see: the member ends with the cap's worth, both new tokens among them. Who had the token
     * before is read without a lock: it only feeds a counter.
     */
    Registration register(String memberId, String deviceToken, Platform platform, int maxPerMember) {
        String before = jdbc.sql("SELECT member_id FROM member_device WHERE device_token = ?")
                .param(deviceToken)
                .query(String.class)
                .optional()
                .orElse(null);
        jdbc.sql("INSERT INTO member_device (device_token, member_id, platform) VALUES (?, ?, ?)"
                        + " ON DUPLICATE KEY UPDATE member_id = VALUES(member_id), platform = VALUES(platform),"
                        + " updated_at = CURRENT_TIMESTAMP(3)")
                .params(deviceToken, memberId, platform.name())
                .update();
        List<String> newestFirst = jdbc.sql("SELECT device_token FROM member_device WHERE member_id = ?"
                        + " ORDER BY device_token = ? DESC, updated_at DESC, device_token")
                .params(memberId, deviceToken)
                .query(String.class)
                .list();
        List<String> older =
                newestFirst.size() > maxPerMember ? newestFirst.subList(maxPerMember, newestFirst.size()) : List.of();
        if (!older.isEmpty()) {
            jdbc.sql("DELETE FROM member_device WHERE member_id = :member AND device_token IN (:tokens)")
                    .param("member", memberId)
                    .param("tokens", older)
                    .update();
        }
        return new Registration(before != null && !before.equals(memberId) ? before : null, older.size());
    }

    /** Removes the member's token; another member's token stays. */
    void unregister(String memberId, String deviceToken) {
        jdbc.sql("DELETE FROM member_device WHERE device_token = ? AND member_id = ?")
                .params(deviceToken, memberId)
                .update();
    }
}
