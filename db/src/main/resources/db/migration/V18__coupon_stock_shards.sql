-- Stock shards (issue 35, docs/architecture.md, "Stock shards"): how many Redis hash slots an event's admission state
-- is spread over. 1, the default and every event created before this column, keeps one slot ({cpn:ID}) exactly as
-- before. The api accepts 1 to 64 and lets it change until the event opens.
ALTER TABLE coupon
    ADD COLUMN stock_shards SMALLINT NOT NULL DEFAULT 1,
    ADD CONSTRAINT coupon_stock_shards_range CHECK (stock_shards BETWEEN 1 AND 64);
