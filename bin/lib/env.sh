# shellcheck shell=bash
# The one place the local defaults of flash-coupon's settings live. Sourced by bin/up, bin/down, bin/demo and bin/test.
# Each variable keeps a value already set in the environment; otherwise it gets the local default. All are exported,
# so the apps started by bin/up (and anything bin/demo runs) see the same values.
#
#   COUPON_JWT_SECRET       HMAC-SHA256 key of the tokens (UTF-8, at least 32 bytes). Local runs only.
#   COUPON_DB_URL           JDBC URL of the MySQL/MariaDB database.
#   COUPON_DB_USER          its user
#   COUPON_DB_PASSWORD      its password
#   COUPON_REDIS_URL        Redis (redis://[user:password@]host:port[/db])
#   COUPON_KAFKA_BOOTSTRAP  Kafka bootstrap servers (host:port[,host:port...])
#   COUPON_API_PORT         HTTP port of the api
#   COUPON_WORKER_PORT      HTTP port of the issuer-worker (actuator only)
#   COUPON_RATELIMIT_ADDRESS_PER_SECOND
#                           requests per second one client address may make. The api's own default is 100; local
#                           runs turn it off (0) because bin/demo's whole crowd comes from 127.0.0.1.

FC_DEFAULT_JWT_SECRET='flash-coupon-local-secret-do-not-use-in-production'
FC_DEFAULT_DB_URL='jdbc:mysql://127.0.0.1:3306/coupon'
FC_DEFAULT_DB_USER='coupon'
FC_DEFAULT_DB_PASSWORD='coupon'
FC_DEFAULT_REDIS_URL='redis://127.0.0.1:6379'
FC_DEFAULT_KAFKA_BOOTSTRAP='127.0.0.1:9092'
FC_DEFAULT_API_PORT='8080'
FC_DEFAULT_WORKER_PORT='8081'
FC_DEFAULT_RATELIMIT_ADDRESS_PER_SECOND='0'

: "${COUPON_JWT_SECRET:=$FC_DEFAULT_JWT_SECRET}"
: "${COUPON_DB_URL:=$FC_DEFAULT_DB_URL}"
: "${COUPON_DB_USER:=$FC_DEFAULT_DB_USER}"
: "${COUPON_DB_PASSWORD:=$FC_DEFAULT_DB_PASSWORD}"
: "${COUPON_REDIS_URL:=$FC_DEFAULT_REDIS_URL}"
: "${COUPON_KAFKA_BOOTSTRAP:=$FC_DEFAULT_KAFKA_BOOTSTRAP}"
: "${COUPON_API_PORT:=$FC_DEFAULT_API_PORT}"
: "${COUPON_WORKER_PORT:=$FC_DEFAULT_WORKER_PORT}"
: "${COUPON_RATELIMIT_ADDRESS_PER_SECOND:=$FC_DEFAULT_RATELIMIT_ADDRESS_PER_SECOND}"

export COUPON_JWT_SECRET COUPON_DB_URL COUPON_DB_USER COUPON_DB_PASSWORD COUPON_REDIS_URL \
  COUPON_KAFKA_BOOTSTRAP COUPON_API_PORT COUPON_WORKER_PORT COUPON_RATELIMIT_ADDRESS_PER_SECOND

# Where the apps answer, for scripts that call them (bin/demo, bin/up's summary).
: "${COUPON_API_URL:=http://127.0.0.1:${COUPON_API_PORT}}"
: "${COUPON_WORKER_URL:=http://127.0.0.1:${COUPON_WORKER_PORT}}"
export COUPON_API_URL COUPON_WORKER_URL
