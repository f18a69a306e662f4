-- A RANDOMIZED_START event's draw, verifiable by anyone (docs/architecture.md, "A draw anyone can check"):
--   seed            32 bytes from a cryptographically secure generator, drawn when the event is created; secret until
--                   the draw is recorded (drawn_at), published after. NULL only for a draw made before draws had seeds
--   commitment      lower-case hex SHA-256 of the seed, published from the event's creation on
--   draw_at         when the window ends (open_at plus the window): the entrants are frozen then
--   drawn_at        when the draw's outcome was recorded here (every entrant's row below): the seed is published from
--                   then on, and status reads of members the draw left out are answered from here after a Redis loss
--   entrants, placed, entrants_digest, first_sequence: what the draw was made from and what it gave: the number of
--                   entrants, how many of them it placed, the SHA-256 of the entrant list, and the admission sequence
--                   of place 1 (place p has sequence first_sequence + p - 1)
CREATE TABLE coupon_draw (
    coupon_id       BIGINT      NOT NULL,
    seed            BINARY(32)  NULL,
    commitment      CHAR(64)    NULL,
    draw_at         DATETIME(3) NOT NULL,
    drawn_at        DATETIME(3) NULL,
    entrants        INT         NULL,
    placed          INT         NULL,
    entrants_digest CHAR(64)    NULL,
    first_sequence  BIGINT      NULL,
    PRIMARY KEY (coupon_id),
    KEY coupon_draw_due (drawn_at, draw_at),
    CONSTRAINT coupon_draw_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Every member who entered a draw's window, with the place the draw gave them (NULL: left out, told FAILED SOLD_OUT).
CREATE TABLE coupon_draw_entrant (
    coupon_id BIGINT      NOT NULL,
    member_id VARCHAR(64) NOT NULL,
    place     INT         NULL,
    PRIMARY KEY (coupon_id, member_id),
    CONSTRAINT coupon_draw_entrant_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- Fair-start events still live when this runs: a window that has not ended yet gets a seed now (RANDOM_BYTES comes from
-- the server's TLS library's secure generator); a window that ended was drawn the old way (tickets drawn by the api),
-- and is recorded without a seed: its draw cannot be checked.
INSERT INTO coupon_draw (coupon_id, seed, draw_at)
SELECT id,
       CASE WHEN open_at + INTERVAL queueing_window_seconds SECOND > UTC_TIMESTAMP(3) THEN RANDOM_BYTES(32) END,
       open_at + INTERVAL queueing_window_seconds SECOND
FROM coupon
WHERE queueing = 'RANDOMIZED_START' AND retired_at IS NULL;

UPDATE coupon_draw SET commitment = LOWER(SHA2(seed, 256)) WHERE seed IS NOT NULL;
