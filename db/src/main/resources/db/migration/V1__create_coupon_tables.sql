-- The coupon event and its counters. Times are UTC (the apps connect with connectionTimeZone=UTC).
CREATE TABLE coupon (
    id                    BIGINT       NOT NULL AUTO_INCREMENT,
    name                  VARCHAR(100) NOT NULL,
    total_quantity        INT          NOT NULL,
    open_at               DATETIME(3)  NOT NULL,
    close_at              DATETIME(3)  NULL,
    issue_rate_per_second INT          NOT NULL,
    valid_days            INT          NOT NULL,
    -- ACTIVE, or CLOSED once an operator closed it; SCHEDULED/OPEN/SOLD_OUT are derived from the window and counters
    status                VARCHAR(16)  NOT NULL DEFAULT 'ACTIVE',
    -- the guarded stock counter: issued_count + n <= total_quantity, checked in the UPDATE itself
    issued_count          INT          NOT NULL DEFAULT 0,
    failed_count          INT          NOT NULL DEFAULT 0,
    dead_lettered_count   INT          NOT NULL DEFAULT 0,
    notified_count        INT          NOT NULL DEFAULT 0,
    -- high-water mark of admissions the drainer has handed to Kafka; restores the stock floor after a Redis loss
    published_count       INT          NOT NULL DEFAULT 0,
    created_at            DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3),
    updated_at            DATETIME(3)  NOT NULL DEFAULT CURRENT_TIMESTAMP(3) ON UPDATE CURRENT_TIMESTAMP(3),
    PRIMARY KEY (id),
    CONSTRAINT coupon_issued_within_stock CHECK (issued_count >= 0 AND issued_count <= total_quantity),
    CONSTRAINT coupon_quantity_positive CHECK (total_quantity > 0),
    CONSTRAINT coupon_rate_positive CHECK (issue_rate_per_second > 0)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Issued coupons. One per (coupon, member): the unique key makes a replayed request a no-op.
CREATE TABLE coupon_wallet (
    id          BIGINT      NOT NULL AUTO_INCREMENT,
    coupon_id   BIGINT      NOT NULL,
    member_id   VARCHAR(64) NOT NULL,
    -- the admission sequence in Redis: issuance order is checked against it
    request_seq BIGINT      NOT NULL,
    issued_at   DATETIME(3) NOT NULL,
    expires_at  DATETIME(3) NOT NULL,
    used_at     DATETIME(3) NULL,
    order_id    VARCHAR(64) NULL,
    PRIMARY KEY (id),
    UNIQUE KEY coupon_wallet_coupon_member (coupon_id, member_id),
    KEY coupon_wallet_member (member_id, id),
    CONSTRAINT coupon_wallet_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Accepted requests that ended FAILED, so that a status read still finds them after Redis lost its copy.
CREATE TABLE coupon_issue_failure (
    coupon_id   BIGINT      NOT NULL,
    member_id   VARCHAR(64) NOT NULL,
    request_seq BIGINT      NOT NULL,
    reason      VARCHAR(32) NOT NULL,
    failed_at   DATETIME(3) NOT NULL,
    PRIMARY KEY (coupon_id, member_id),
    CONSTRAINT coupon_issue_failure_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
