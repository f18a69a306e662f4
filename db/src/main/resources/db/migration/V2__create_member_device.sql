-- Push tokens of members' devices. A token identifies one app install, so it is the key: registering a token that
-- another member registered before moves it to the caller (the phone changed hands or accounts).
CREATE TABLE member_device (
    device_token VARCHAR(255) NOT NULL,
    member_id    VARCHAR(64)  NOT NULL,
    -- ANDROID, IOS or WEB
    platform     VARCHAR(16)  NOT NULL,
    created_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at   DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (device_token),
    KEY member_device_member (member_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- One row per push of one result event to one device: the notifier's de-duplication across replays and restarts.
-- The row is claimed (SENDING) before the provider is called and marked SENT (or DROPPED for an unregistered token)
-- after; a SENDING row older than the claim timeout belongs to a notifier that died and may be taken over.
CREATE TABLE notification_delivery (
    event_id     VARCHAR(100) NOT NULL,
    device_token VARCHAR(255) NOT NULL,
    coupon_id    BIGINT       NOT NULL,
    -- SENDING, SENT or DROPPED
    state        VARCHAR(16)  NOT NULL,
    claimed_at   DATETIME(3)  NOT NULL,
    finished_at  DATETIME(3)  NULL,
    PRIMARY KEY (event_id, device_token),
    KEY notification_delivery_coupon (coupon_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
