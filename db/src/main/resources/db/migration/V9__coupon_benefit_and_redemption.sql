-- What a coupon is worth, and its redemption by an order service (docs/architecture.md, "Redeeming a coupon").
-- None of these tables is written on the flash path: admission never reads them, and the worker's wallet INSERT
-- only gets the default state.

-- The benefit, fixed when the event is created. No row: the coupon has no value of its own (as before V9).
CREATE TABLE coupon_benefit (
    coupon_id        BIGINT      NOT NULL,
    -- FIXED_AMOUNT (amount off) or PERCENT (percent off, at most max_discount when set); whole currency units
    type             VARCHAR(16) NOT NULL,
    amount           BIGINT      NULL,
    percent          INT         NULL,
    max_discount     BIGINT      NULL,
    min_order_amount BIGINT      NOT NULL DEFAULT 0,
    PRIMARY KEY (coupon_id),
    CONSTRAINT coupon_benefit_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- A wallet coupon's state: AVAILABLE, RESERVED (for one redemption), USED or EXPIRED. Only conditional updates
-- (WHERE state = the state it leaves) change it, each with a row in coupon_wallet_change.
ALTER TABLE coupon_wallet
    ADD COLUMN state         VARCHAR(16) NOT NULL DEFAULT 'AVAILABLE',
    ADD COLUMN redemption_id BIGINT      NULL,
    ADD KEY coupon_wallet_state_expiry (state, expires_at);

UPDATE coupon_wallet SET state = 'USED' WHERE used_at IS NOT NULL;

-- One order's hold on a wallet coupon: RESERVED, then USED (confirmed), RELEASED, TIMED_OUT or CANCELLED (refunded).
CREATE TABLE coupon_redemption (
    id               BIGINT      NOT NULL AUTO_INCREMENT,
    wallet_coupon_id BIGINT      NOT NULL,
    coupon_id        BIGINT      NOT NULL,
    member_id        VARCHAR(64) NOT NULL,
    order_id         VARCHAR(64) NOT NULL,
    -- null when the member used the coupon from the app (no order amount is known there)
    order_amount     BIGINT      NULL,
    discount         BIGINT      NULL,
    state            VARCHAR(16) NOT NULL,
    reserved_at      DATETIME(3) NOT NULL,
    -- the reservation's deadline (COUPON_RESERVATION_TTL after reserved_at); null for a use from the app
    expires_at       DATETIME(3) NULL,
    confirmed_at     DATETIME(3) NULL,
    ended_at         DATETIME(3) NULL,
    created_by       VARCHAR(80) NOT NULL,
    PRIMARY KEY (id),
    KEY coupon_redemption_order (order_id, id),
    KEY coupon_redemption_due (state, expires_at),
    CONSTRAINT coupon_redemption_wallet FOREIGN KEY (wallet_coupon_id) REFERENCES coupon_wallet (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every change of a wallet coupon's state (who, which order, when), written in the transaction of the change; also
-- the outbox of the topic coupon.wallet.changed: the relay publishes the rows without published_at, in id order.
CREATE TABLE coupon_wallet_change (
    id               BIGINT      NOT NULL AUTO_INCREMENT,
    wallet_coupon_id BIGINT      NOT NULL,
    coupon_id        BIGINT      NOT NULL,
    member_id        VARCHAR(64) NOT NULL,
    from_state       VARCHAR(16) NOT NULL,
    to_state         VARCHAR(16) NOT NULL,
    reason           VARCHAR(16) NOT NULL,
    redemption_id    BIGINT      NULL,
    order_id         VARCHAR(64) NULL,
    discount         BIGINT      NULL,
    actor            VARCHAR(80) NOT NULL,
    changed_at       DATETIME(3) NOT NULL,
    published_at     DATETIME(3) NULL,
    PRIMARY KEY (id),
    KEY coupon_wallet_change_wallet (wallet_coupon_id, id),
    KEY coupon_wallet_change_unpublished (published_at, id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Per event, kept with each change: wallet coupons reserved, used and expired now; restored (cancelled and usable
-- again) in all; the discount of the coupons used now. A table of its own: the coupon row is the worker's hot row.
CREATE TABLE coupon_redemption_stats (
    coupon_id        BIGINT NOT NULL,
    reserved         INT    NOT NULL DEFAULT 0,
    used             INT    NOT NULL DEFAULT 0,
    expired          INT    NOT NULL DEFAULT 0,
    restored         INT    NOT NULL DEFAULT 0,
    discount_granted BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (coupon_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

INSERT INTO coupon_redemption_stats (coupon_id, used)
SELECT coupon_id, COUNT(*) FROM coupon_wallet WHERE used_at IS NOT NULL GROUP BY coupon_id;

-- The answer to each write of the redemption API, by the caller's Idempotency-Key, kept for a day: the same key and
-- request answer the same; the same key with another request is refused.
CREATE TABLE redemption_idempotency (
    caller          VARCHAR(64)  NOT NULL,
    idempotency_key VARCHAR(255) NOT NULL,
    request_hash    CHAR(64)     NOT NULL,
    status          INT          NULL,
    code            VARCHAR(40)  NULL,
    body            TEXT         NULL,
    created_at      DATETIME(3)  NOT NULL,
    PRIMARY KEY (caller, idempotency_key),
    KEY redemption_idempotency_created (created_at)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;
