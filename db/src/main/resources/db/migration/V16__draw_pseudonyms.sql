-- Draw function 2 (docs/architecture.md, "A draw anyone can check"): the draw is made over entrants' pseudonyms, so
-- that its whole entrant list can be published without naming anyone.
--   function_version  1: tickets over member ids (draws before this change); 2: over pseudonyms
--   pseudonym_key     32 bytes from a cryptographically secure generator, one per event, never published: a member's
--                     pseudonym is the lower-case hex HMAC-SHA256 of their member id's UTF-8 bytes under this key, so
--                     pseudonyms of two events cannot be linked and nobody without the key can tell whose one is
--   coupon_draw_entrant.pseudonym: the entrant's pseudonym (function 2; NULL for function 1)
ALTER TABLE coupon_draw
    ADD COLUMN function_version TINYINT    NOT NULL DEFAULT 1,
    ADD COLUMN pseudonym_key    BINARY(32) NULL;

ALTER TABLE coupon_draw_entrant
    ADD COLUMN pseudonym CHAR(64) NULL,
    ADD KEY coupon_draw_entrant_pseudonym (coupon_id, pseudonym);

-- Draws whose set is not frozen yet are made with function 2.
UPDATE coupon_draw SET function_version = 2, pseudonym_key = RANDOM_BYTES(32)
WHERE frozen_at IS NULL AND drawn_at IS NULL AND seed IS NOT NULL;
