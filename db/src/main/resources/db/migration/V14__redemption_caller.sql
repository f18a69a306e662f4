-- Each redemption belongs to the caller that made it (docs/http-api.md, Internal endpoints): the `sub` of the order
-- service's token. Only that caller may read, confirm, release or cancel it; any other gets 404, as for an id that does
-- not exist. NULL: a use from the member's app (GET /internal/v1/redemptions?orderId= lists it; no caller owns it).
ALTER TABLE coupon_redemption
    ADD COLUMN caller VARCHAR(64) NULL AFTER created_by;

-- the rows made before: their creator was recorded as 'redeemer:<sub>' (or 'member:<id>' for a use from the app)
UPDATE coupon_redemption SET caller = SUBSTRING(created_by, 10) WHERE created_by LIKE 'redeemer:%';
