-- The MySQL/MariaDB users of the two apps (docs/operations.md "Who may write what"), each with only the grants it
-- needs. Run as an administrator after the migrations (a grant names tables, which must exist), and again after a
-- migration that adds a table; the migrations' own user is deploy/mysql-migration-user.sql. bin/lib/mysql-users.sh
-- fills in the marks (@DATABASE@, @API_USER@, @API_PASSWORD@, @WORKER_USER@, @WORKER_PASSWORD@; passwords of letters,
-- digits, '-' and '_'). Running it again changes nothing but the passwords. A new table needs its grants here:
-- MySqlUsersTest fails while a table has none for the api.

CREATE USER IF NOT EXISTS '@API_USER@'@'%' IDENTIFIED BY '@API_PASSWORD@';
ALTER USER '@API_USER@'@'%' IDENTIFIED BY '@API_PASSWORD@';
-- events, their gates, draws and eligibility lists, devices, redemptions and the wallet changes' outbox
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_benefit` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_gate` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_eligible_member` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_draw` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_draw_entrant` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`member_device` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_redemption` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_redemption_stats` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`coupon_wallet_change` TO '@API_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`redemption_idempotency` TO '@API_USER@'@'%';
-- wallets and failures are the worker's: the api reads them and changes a wallet's state (use, redemption)
GRANT SELECT, UPDATE ON `@DATABASE@`.`coupon_wallet` TO '@API_USER@'@'%';
GRANT SELECT ON `@DATABASE@`.`coupon_issue_failure` TO '@API_USER@'@'%';
GRANT SELECT ON `@DATABASE@`.`notification_delivery` TO '@API_USER@'@'%';

CREATE USER IF NOT EXISTS '@WORKER_USER@'@'%' IDENTIFIED BY '@WORKER_PASSWORD@';
ALTER USER '@WORKER_USER@'@'%' IDENTIFIED BY '@WORKER_PASSWORD@';
-- the event row, locked for each batch (SELECT ... FOR UPDATE), and its counters only
GRANT SELECT, UPDATE (issued_count, failed_count, dead_lettered_count, notified_count) ON `@DATABASE@`.`coupon` TO '@WORKER_USER@'@'%';
GRANT SELECT, INSERT ON `@DATABASE@`.`coupon_wallet` TO '@WORKER_USER@'@'%';
GRANT SELECT, INSERT ON `@DATABASE@`.`coupon_issue_failure` TO '@WORKER_USER@'@'%';
-- the notifier: the members' devices (one that the provider says is gone is removed) and its delivery log
GRANT SELECT, DELETE ON `@DATABASE@`.`member_device` TO '@WORKER_USER@'@'%';
GRANT SELECT, INSERT, UPDATE, DELETE ON `@DATABASE@`.`notification_delivery` TO '@WORKER_USER@'@'%';
-- nothing else: not the draws' seeds (coupon_draw), the eligibility lists, the redemptions, nor any event setting
