package com.flashcoupon.worker.notify;

import java.util.List;
import org.springframework.jdbc.core.simple.JdbcClient;

/** The member's registered devices ({@code member_device}, written by the api). */
class DeviceDirectory {

    private final JdbcClient jdbc;

    DeviceDirectory(JdbcClient jdbc) {
        this.jdbc = jdbc;
    }

    List<Device> devicesOf(String memberId) {
        return jdbc.sql("SELECT device_token, platform FROM member_device WHERE member_id = ? ORDER BY device_token")
                .param(memberId)
                .query((rs, row) -> new Device(rs.getString(1), rs.getString(2)))
                .list();
    }
}
