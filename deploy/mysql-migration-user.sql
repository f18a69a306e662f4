-- The user the migrations (Flyway) run as, and only they: the apps work as their own users (deploy/mysql-users.sql).
-- Run as an administrator before the first migration; bin/lib/mysql-users.sh fills in the marks (@DATABASE@,
-- @MIGRATION_USER@, @MIGRATION_PASSWORD@).

CREATE USER IF NOT EXISTS '@MIGRATION_USER@'@'%' IDENTIFIED BY '@MIGRATION_PASSWORD@';
ALTER USER '@MIGRATION_USER@'@'%' IDENTIFIED BY '@MIGRATION_PASSWORD@';
-- Flyway: creates and alters the tables, keeps flyway_schema_history, takes its lock
GRANT ALL PRIVILEGES ON `@DATABASE@`.* TO '@MIGRATION_USER@'@'%';
