-- When members may see an event (docs/http-api.md, "Announcement"): before announce_at, the member endpoints answer
-- as for a coupon that does not exist. The api sets it at creation (given, or open_at minus COUPON_ANNOUNCE_LEAD).
-- NULL for events created before this column: they were visible to members from their creation, and stay so.
ALTER TABLE coupon
    ADD COLUMN announce_at DATETIME(3) NULL;
