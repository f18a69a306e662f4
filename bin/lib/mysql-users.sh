#!/bin/sh
# Prints the SQL of flash-coupon's MySQL/MariaDB users for one database, its marks filled in, for an administrator's
# client:
#
#   bin/lib/mysql-users.sh migration DATABASE | mysql -uroot   # deploy/mysql-migration-user.sql, before migrating
#   bin/lib/mysql-users.sh apps DATABASE | mysql -uroot        # deploy/mysql-users.sql, after migrating
#
# from COUPON_DB_MIGRATION_USER and COUPON_DB_MIGRATION_PASSWORD (migration), COUPON_DB_API_USER,
# COUPON_DB_API_PASSWORD, COUPON_DB_WORKER_USER and COUPON_DB_WORKER_PASSWORD (apps): names and passwords of letters,
# digits, '-' and '_'.
set -eu
part=$1 database=$2
case $part in
  migration) file=mysql-migration-user.sql names='COUPON_DB_MIGRATION_USER COUPON_DB_MIGRATION_PASSWORD' ;;
  apps) file=mysql-users.sql names='COUPON_DB_API_USER COUPON_DB_API_PASSWORD COUPON_DB_WORKER_USER COUPON_DB_WORKER_PASSWORD' ;;
  *)
    echo "mysql-users.sh: migration or apps, not '$part'" >&2
    exit 1
    ;;
esac
for name in $names; do
  eval "value=\${$name:-}"
  case $value in
    '' | *[!A-Za-z0-9_-]*)
      echo "mysql-users.sh: $name must be set, of letters, digits, '-' and '_'" >&2
      exit 1
      ;;
  esac
done
case $database in '' | *[!A-Za-z0-9_]*)
  echo "mysql-users.sh: a database name of letters, digits and '_'" >&2
  exit 1
  ;;
esac
sed -e "s/@DATABASE@/$database/g" \
  -e "s/@API_USER@/${COUPON_DB_API_USER:-}/g" -e "s/@API_PASSWORD@/${COUPON_DB_API_PASSWORD:-}/g" \
  -e "s/@WORKER_USER@/${COUPON_DB_WORKER_USER:-}/g" -e "s/@WORKER_PASSWORD@/${COUPON_DB_WORKER_PASSWORD:-}/g" \
  -e "s/@MIGRATION_USER@/${COUPON_DB_MIGRATION_USER:-}/g" \
  -e "s/@MIGRATION_PASSWORD@/${COUPON_DB_MIGRATION_PASSWORD:-}/g" \
  "$(dirname "$0")/../../deploy/$file"
