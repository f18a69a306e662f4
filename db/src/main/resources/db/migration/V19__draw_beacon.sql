-- A fair start's draw may mix in a public randomness beacon's round (COUPON_DRAW_BEACON_URL, drand's HTTP JSON;
-- docs/architecture.md, "A draw anyone can check"): draw function 3 is function 2 with the ticket key
-- SHA-256(seed || the round's randomness) instead of the seed.
--   beacon_round       the beacon round mixed in: the first one published after draw_at; NULL without a beacon
--   beacon_randomness  that round's randomness, lower-case hex (32 bytes), as the beacon published it
--   beacon_signature   that round's signature, lower-case hex; its SHA-256 is the randomness (drand)
ALTER TABLE coupon_draw
    ADD COLUMN beacon_round      BIGINT       NULL,
    ADD COLUMN beacon_randomness CHAR(64)     NULL,
    ADD COLUMN beacon_signature  VARCHAR(512) NULL;
