#!/bin/sh
# Writes the Redis ACL file of flash-coupon's users: deploy/redis-users.acl with each password's SHA-256 in place of
# its mark, so that the file holds no password. POSIX sh, so that the Redis container of docker-compose.yml runs it too.
#
#   redis-acl.sh TEMPLATE OUT   (COUPON_REDIS_API_PASSWORD, COUPON_REDIS_WORKER_PASSWORD, COUPON_REDIS_ADMIN_PASSWORD set)
set -eu
template=$1 out=$2
for name in COUPON_REDIS_API_PASSWORD COUPON_REDIS_WORKER_PASSWORD COUPON_REDIS_ADMIN_PASSWORD; do
  eval "value=\${$name:-}"
  if [ -z "$value" ]; then
    echo "redis-acl.sh: $name is not set" >&2
    exit 1
  fi
done
sha() { printf %s "$1" | sha256sum | cut -d' ' -f1; }
umask 077
grep -v '^#' "$template" | grep . | sed \
  -e "s/@API_PASSWORD_SHA256@/$(sha "${COUPON_REDIS_API_PASSWORD:-}")/" \
  -e "s/@WORKER_PASSWORD_SHA256@/$(sha "${COUPON_REDIS_WORKER_PASSWORD:-}")/" \
  -e "s/@ADMIN_PASSWORD_SHA256@/$(sha "${COUPON_REDIS_ADMIN_PASSWORD:-}")/" >"$out"
