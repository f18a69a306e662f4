-- A fair start's entrant set frozen before any ticket is computed, and the draw made known to members only once it is
-- recorded (docs/architecture.md, "A draw anyone can check"):
--   frozen_at, frozen_entrants, frozen_root: when the draw job first read the closed window's entrants, how many there
--                   were and the lower-case hex SHA-256 of their documented leaves (the entrants' digest). Public from
--                   then on; the draw refuses a Redis set that differs from them (coupon_draw_refused_total)
--   made_at         when the recorded draw was written into Redis (members learn their outcome from then on); a draw
--                   is recorded (drawn_at) before it is made, so that no member is told what a Redis loss can undo
ALTER TABLE coupon_draw
    ADD COLUMN frozen_at       DATETIME(3) NULL,
    ADD COLUMN frozen_entrants INT         NULL,
    ADD COLUMN frozen_root     CHAR(64)    NULL,
    ADD COLUMN made_at         DATETIME(3) NULL,
    ADD KEY coupon_draw_unmade (made_at, draw_at);

-- Draws recorded before: made, their set the one recorded.
UPDATE coupon_draw
SET frozen_at = drawn_at, frozen_entrants = entrants, frozen_root = entrants_digest, made_at = drawn_at
WHERE drawn_at IS NOT NULL;
