-- What the gate refused (issue 26), kept with the event's other figures: Redis counts them as admissions are decided
-- (docs/architecture.md, "The gate"); the api saves them here every few seconds while the event has state in Redis and
-- once more when it retires, so that they outlive the event's Redis keys and a Redis loss. Each save keeps the
-- higher figure (GREATEST), so a Redis that lost them never lowers what was saved; a restore puts them back.
--   refused_list, refused_claims, refused_proof   requests the gate refused, by rule (the view's `refused`)
--   would_refuse_list, would_refuse_claims        COUNT_ONLY: distinct members each rule would have refused (the
--                                                 view's `wouldRefuse`), as Redis' HyperLogLog estimated them
--   would_refuse_list_sketch, ..._claims_sketch   those HyperLogLogs themselves (Redis' own encoding, 12 KB at most):
--                                                 merged back after a loss, so a member counted before it and again
--                                                 after it still counts once
ALTER TABLE coupon_gate
    ADD COLUMN refused_list                BIGINT         NOT NULL DEFAULT 0,
    ADD COLUMN refused_claims              BIGINT         NOT NULL DEFAULT 0,
    ADD COLUMN refused_proof               BIGINT         NOT NULL DEFAULT 0,
    ADD COLUMN would_refuse_list           BIGINT         NOT NULL DEFAULT 0,
    ADD COLUMN would_refuse_claims         BIGINT         NOT NULL DEFAULT 0,
    ADD COLUMN would_refuse_list_sketch    BLOB           NULL,
    ADD COLUMN would_refuse_claims_sketch  BLOB           NULL;
