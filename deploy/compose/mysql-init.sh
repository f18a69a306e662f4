#!/bin/sh
# Run once by the mysql image, at the first start of an empty data volume (/docker-entrypoint-initdb.d/), as root over
# the server's socket: the migrations' own user (deploy/mysql-migration-user.sql, filled in by bin/lib/mysql-users.sh
# from COUPON_DB_MIGRATION_USER and COUPON_DB_MIGRATION_PASSWORD). The apps' users and their grants come later, from
# the mysql-grants service: a grant names a table, which exists once the api has migrated.
set -eu
sh /flash-coupon/bin/lib/mysql-users.sh migration coupon | mysql --protocol=socket -uroot -p"$MYSQL_ROOT_PASSWORD"
