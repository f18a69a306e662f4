-- An event's life (docs/architecture.md, "An event's life"), recorded on the coupon row:
--   version        raised by every change of the event's settings (rate, window, close, retirement); the Redis mirror
--                  keeps the version it was written from and refuses an older snapshot, so a close is never undone
--   settled_at     when admission was over and every admitted member was issued or told FAILED
--   retired_at     when MySQL took over every answer about the event; its Redis state is being removed
--   keys_removed_at when the event's Redis keys were gone
--   admitted_count, rejected_sold_out_count: the final figures that lived only in Redis, kept at retirement
ALTER TABLE coupon
    ADD COLUMN version                 BIGINT      NOT NULL DEFAULT 0,
    ADD COLUMN settled_at              DATETIME(3) NULL,
    ADD COLUMN retired_at              DATETIME(3) NULL,
    ADD COLUMN keys_removed_at         DATETIME(3) NULL,
    ADD COLUMN admitted_count          INT         NULL,
    ADD COLUMN rejected_sold_out_count BIGINT      NULL,
    ADD KEY coupon_live (keys_removed_at, id);
