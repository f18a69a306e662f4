package com.flashcoupon.worker.notify;

import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The member's registered devices ({@code member_device}, written by the api). */
class DeviceDirectory {

    private final JdbcClient jdbc;

    DeviceDirectory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    /**
     * The member's {@code limit} most recently registered devices: however many rows a member has (the api keeps at
     * most that many, rows from before the cap may be more), one result is never pushed to more.
     */
    List<Device> devicesOf(String memberId, int limit) {
        return jdbc.sql("SELECT device_token, platform FROM member_device WHERE member_id = ?"
                        + " ORDER BY updated_at DESC, device_token LIMIT ?")
                .params(memberId, limit)
                .query((rs, row) -> new Device(rs.getString(1), rs.getString(2)))
                .list();
    }
}
