-- What a restore from MySQL after a Redis loss needs to tell the operator (docs/architecture.md, "Redis lost"):
--   admitted_seen_count  high-water mark of admissions the drainer saw in Redis (base + queue size), raised with
--                        published_count; reset to what was published when a restore has counted the unknown
--   unknown_count        admissions Redis lost before they were handed to Kafka, added up over every restore: their
--                        members were told 202 and are unknown now (404 on status; they may ask again)
ALTER TABLE coupon
    ADD COLUMN admitted_seen_count INT NOT NULL DEFAULT 0,
    ADD COLUMN unknown_count       INT NOT NULL DEFAULT 0;
