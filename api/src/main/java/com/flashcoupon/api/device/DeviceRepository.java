package com.flashcoupon.api.device;

import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.stereotype.Repository;

/** {@code member_device}: push tokens. Blocking: callers run it through {@code BlockingIo}. */
@Repository
class DeviceRepository {

    private final JdbcClient jdbc;

    DeviceRepository(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /** Registers the token for the member; a token registered before (by anyone) now belongs to this member. */
    void register(String memberId, String deviceToken, Platform platform) {
        jdbc.sql("INSERT INTO member_device (device_token, member_id, platform) VALUES (?, ?, ?)"
                        + " ON DUPLICATE KEY UPDATE member_id = VALUES(member_id), platform = VALUES(platform)")
                .params(deviceToken, memberId, platform.name())
                .update();
    }

    /** Removes the member's token; another member's token stays. */
    void unregister(String memberId, String deviceToken) {
        jdbc.sql("DELETE FROM member_device WHERE device_token = ? AND member_id = ?")
                .params(deviceToken, memberId)
                .update();
    }
}
