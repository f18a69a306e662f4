-- Fences a push's claim: set anew by whoever claims or takes over the row, and required by the finish and the release,
-- so a notifier whose claim was taken over never finishes nor deletes the new owner's claim.
ALTER TABLE notification_delivery ADD COLUMN claim_token CHAR(36) NULL AFTER claimed_at;
