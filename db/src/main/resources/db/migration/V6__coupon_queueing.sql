-- How an event orders its members (docs/architecture.md, "Queueing modes"):
--   queueing                 FIFO (first come, first served) or RANDOMIZED_START (the members who ask within the
--                            first queueing_window_seconds after open_at get their places in a random order drawn
--                            once when the window ends; after it, first come again)
--   queueing_window_seconds  that window; 0 for FIFO
ALTER TABLE coupon
    ADD COLUMN queueing                VARCHAR(24) NOT NULL DEFAULT 'FIFO',
    ADD COLUMN queueing_window_seconds INT         NOT NULL DEFAULT 0;
