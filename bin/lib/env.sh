# shellcheck shell=bash
# The one place the local defaults of flash-coupon's settings live. Sourced by bin/up, bin/down, bin/demo and bin/test.
# Each variable keeps a value already set in the environment; otherwise it gets the local default. All are exported,
# so the apps started by bin/up (and anything bin/demo runs) see the same values.
#
#   COUPON_JWT_SECRET       HMAC-SHA256 key of the tokens (UTF-8, at least 32 bytes). Local runs only.
#   COUPON_HUMAN_CHECK_SECRET
#                           the key proof-of-work challenges are signed with, one for every api instance (bin/up
#                           --cluster runs several: a challenge from one must be accepted by another). Local runs only:
#                           the api refuses this default outside the local profile.
#   COUPON_RECORD_SIGNING_KEY
#                           the key the api signs each issue request it publishes to Kafka with and the worker checks
#                           (a record whose signature does not hold is dead-lettered, nothing written): one for every
#                           api and worker. Local runs only: both apps refuse this default outside the local profile.
#   COUPON_DRAW_SEED_KEY    the key fair starts' seeds are encrypted with until their draw, and entry receipts are
#                           signed with a key derived from. Local runs only: the api refuses this default outside the
#                           local profile.
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
#   COUPON_BIND_ADDRESS     the address the apps listen on: 127.0.0.1, so that nothing outside this machine reaches
#                           apps that accept tokens signed with the public local secret (anyone can mint an operator's
#                           token with it). Set 0.0.0.0 (all interfaces) only with a secret of your own.

FC_DEFAULT_JWT_SECRET='flash-coupon-local-secret-do-not-use-in-production'
FC_DEFAULT_HUMAN_CHECK_SECRET='flash-coupon-local-human-check-do-not-use-in-production'
FC_DEFAULT_RECORD_SIGNING_KEY='flash-coupon-local-record-signing-do-not-use-in-production'
FC_DEFAULT_DRAW_SEED_KEY='flash-coupon-local-draw-seed-key-do-not-use-in-production'
FC_DEFAULT_DB_URL='jdbc:mysql://127.0.0.1:3306/coupon'
FC_DEFAULT_DB_USER='coupon'
FC_DEFAULT_DB_PASSWORD='coupon'
FC_DEFAULT_REDIS_URL='redis://127.0.0.1:6379'
FC_DEFAULT_KAFKA_BOOTSTRAP='127.0.0.1:9092'
FC_DEFAULT_API_PORT='8080'
FC_DEFAULT_WORKER_PORT='8081'
FC_DEFAULT_RATELIMIT_ADDRESS_PER_SECOND='0'
FC_DEFAULT_BIND_ADDRESS='127.0.0.1'

: "${COUPON_JWT_SECRET:=$FC_DEFAULT_JWT_SECRET}"
: "${COUPON_HUMAN_CHECK_SECRET:=$FC_DEFAULT_HUMAN_CHECK_SECRET}"
: "${COUPON_RECORD_SIGNING_KEY:=$FC_DEFAULT_RECORD_SIGNING_KEY}"
: "${COUPON_DRAW_SEED_KEY:=$FC_DEFAULT_DRAW_SEED_KEY}"
: "${COUPON_DB_URL:=$FC_DEFAULT_DB_URL}"
: "${COUPON_DB_USER:=$FC_DEFAULT_DB_USER}"
: "${COUPON_DB_PASSWORD:=$FC_DEFAULT_DB_PASSWORD}"
: "${COUPON_REDIS_URL:=$FC_DEFAULT_REDIS_URL}"
: "${COUPON_KAFKA_BOOTSTRAP:=$FC_DEFAULT_KAFKA_BOOTSTRAP}"
: "${COUPON_API_PORT:=$FC_DEFAULT_API_PORT}"
: "${COUPON_WORKER_PORT:=$FC_DEFAULT_WORKER_PORT}"
: "${COUPON_RATELIMIT_ADDRESS_PER_SECOND:=$FC_DEFAULT_RATELIMIT_ADDRESS_PER_SECOND}"
: "${COUPON_BIND_ADDRESS:=$FC_DEFAULT_BIND_ADDRESS}"

export COUPON_JWT_SECRET COUPON_HUMAN_CHECK_SECRET COUPON_RECORD_SIGNING_KEY COUPON_DRAW_SEED_KEY COUPON_DB_URL COUPON_DB_USER COUPON_DB_PASSWORD COUPON_REDIS_URL \
  COUPON_KAFKA_BOOTSTRAP COUPON_API_PORT COUPON_WORKER_PORT COUPON_RATELIMIT_ADDRESS_PER_SECOND COUPON_BIND_ADDRESS

# Where the apps answer, for scripts that call them (bin/demo, bin/up's summary).
: "${COUPON_API_URL:=http://127.0.0.1:${COUPON_API_PORT}}"
: "${COUPON_WORKER_URL:=http://127.0.0.1:${COUPON_WORKER_PORT}}"
export COUPON_API_URL COUPON_WORKER_URL

# ---------------------------------------------------------------------------------------------------------------- cluster
# The one-machine cluster of `bin/up --cluster` (bin/lib/cluster.sh). Its ports differ from the single stack's, so both
# can run side by side; each default keeps a value already set.
#
#   FC_CLUSTER_REDIS_PORTS       six Redis nodes, cluster mode: three masters and a replica each (cluster bus: port
#                                + 10000, Redis' rule, so 17101-17106 must be free too)
#   FC_CLUSTER_KAFKA_PORTS       three KRaft nodes, each broker and controller (the brokers' listeners)
#   FC_CLUSTER_KAFKA_CONTROLLER_PORTS  their controller listeners, in the same order
#   FC_CLUSTER_API_PORTS         two api instances
#   FC_CLUSTER_WORKER_PORTS      two issuer-workers
#   FC_CLUSTER_LB_PORT           HAProxy in front of the apis: the cluster's one address for members and operators
#   FC_CLUSTER_DB_URL            a database of its own on the same MySQL/MariaDB, so that the single stack's jobs
#                                (settling, retiring, restoring events) never see the cluster's events, nor the reverse
: "${FC_CLUSTER_REDIS_PORTS:=7101 7102 7103 7104 7105 7106}"
: "${FC_CLUSTER_KAFKA_PORTS:=19092 19093 19094}"
: "${FC_CLUSTER_KAFKA_CONTROLLER_PORTS:=19095 19096 19097}"
: "${FC_CLUSTER_API_PORTS:=8181 8182}"
: "${FC_CLUSTER_WORKER_PORTS:=8191 8192}"
: "${FC_CLUSTER_LB_PORT:=8180}"
FC_CLUSTER_DEFAULT_DB_URL='jdbc:mysql://127.0.0.1:3306/coupon_cluster'
: "${FC_CLUSTER_DB_URL:=$FC_CLUSTER_DEFAULT_DB_URL}"

# fc_cluster_env: points the COUPON_* settings at the cluster (bin/up --cluster, bin/demo --cluster). The apps and
# loadgen then read them as they read the single stack's; the instance's own port is given per app (apps.sh).
fc_cluster_env() {
  local p nodes='' bootstrap=''
  for p in $FC_CLUSTER_REDIS_PORTS; do nodes+="${nodes:+,}127.0.0.1:$p"; done
  for p in $FC_CLUSTER_KAFKA_PORTS; do bootstrap+="${bootstrap:+,}127.0.0.1:$p"; done
  COUPON_REDIS_CLUSTER_NODES=$nodes
  COUPON_KAFKA_BOOTSTRAP=$bootstrap
  COUPON_DB_URL=$FC_CLUSTER_DB_URL
  # Topics with three replicas (min.insync.replicas 2): a broker may die without losing an acknowledged record.
  COUPON_KAFKA_REPLICATION_FACTOR=3
  # A 202 only once a replica has the admission too (Redis WAIT): a master may die without losing a promise.
  : "${COUPON_REDIS_MIN_REPLICAS:=1}"
  # HAProxy forwards the member's address in X-Forwarded-For; the apis believe it only from the balancer.
  : "${COUPON_TRUSTED_PROXIES:=127.0.0.1}"
  COUPON_API_URL="http://127.0.0.1:$FC_CLUSTER_LB_PORT"
  export COUPON_REDIS_CLUSTER_NODES COUPON_KAFKA_BOOTSTRAP COUPON_DB_URL COUPON_KAFKA_REPLICATION_FACTOR \
    COUPON_REDIS_MIN_REPLICAS COUPON_TRUSTED_PROXIES COUPON_API_URL
}
