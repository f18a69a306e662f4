-- A fair start's seed out of reach until its draw (docs/architecture.md, "A draw anyone can check"):
--   sealed_seed     the seed encrypted with the api's COUPON_DRAW_SEED_KEY (AES-256-GCM: the key's id, 8 bytes, the IV,
--                   12, the ciphertext and the tag), from the event's creation until its draw is recorded; seed is
--                   NULL until then, and holds the seed in plain text once the draw is recorded (it is published).
--                   Seeds of draws not yet recorded when this runs are sealed by the api when it starts
--                   (DrawRepository.sealPlainSeeds): no key is in MySQL.
ALTER TABLE coupon_draw
    ADD COLUMN sealed_seed VARBINARY(96) NULL;
