# shellcheck shell=bash
# shellcheck disable=SC2034 # FC_KAFKA_* variables set here are read by kafka.sh.
# The one-machine cluster of bin/up --cluster: six Redis nodes in cluster mode (three masters, a replica each), three
# KRaft Kafka nodes (a quorum of three, topics with three replicas), and HAProxy in front of the api instances. The
# apps themselves are started by apps.sh (cluster-api-N, cluster-worker-N). Ports: FC_CLUSTER_* in env.sh.
# Everything lives in .run/cluster/ (data, pids, logs in .run/cluster/logs/, the generated haproxy.cfg).
# Needs common.sh, env.sh, jdk.sh, services.sh, kafka.sh and apps.sh sourced.
#
# Settings beyond env.sh (rarely needed):
#   FC_CLUSTER_KAFKA_JAVA_OPTS  JVM options of each Kafka node (default: -Xms128m -Xmx256m)
#   FC_CLUSTER_REDIS_NODE_TIMEOUT  cluster-node-timeout in ms (default 5000: a dead master's replica takes over
#                                  within about that, instead of Redis' default 15 s)

FC_CLUSTER_RUN="$FC_RUN/cluster"
FC_CLUSTER_LOGS="$FC_CLUSTER_RUN/logs"
FC_CLUSTER_APPS=(cluster-api-1 cluster-api-2 cluster-worker-1 cluster-worker-2)

fc_cluster_rel() { printf '%s\n' "${1#"$FC_ROOT"/}"; }

# ---------------------------------------------------------------------------------------------------------------- secrets
# The cluster checks who writes: Redis with the ACL users of deploy/redis-users.acl, Kafka with SASL/SCRAM and the
# ACLs of the contract's KafkaAccess (docs/operations.md, "Who may write what"). Their passwords are made once, at
# random, into .run/cluster/secrets.env (mode 600), and kept while the cluster's data is: bin/down --purge removes
# both.
FC_CLUSTER_SECRETS="$FC_CLUSTER_RUN/secrets.env"

# fc_cluster_secrets [create]: loads the passwords (making them first with "create" when there are none).
fc_cluster_secrets() {
  if [[ ! -s $FC_CLUSTER_SECRETS ]]; then
    [[ ${1:-} == create ]] || return 0
    mkdir -p "$FC_CLUSTER_RUN"
    local name
    (
      umask 077
      for name in $FC_CLUSTER_SECRET_NAMES; do
        printf 'FC_CLUSTER_%s_PASSWORD=%s\n' "$name" "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
      done >"$FC_CLUSTER_SECRETS"
    )
  fi
  # shellcheck disable=SC1090 # written above
  . "$FC_CLUSTER_SECRETS"
  # a file made by an earlier version lacks the passwords added since: made now, the others kept
  local missing
  for missing in $FC_CLUSTER_SECRET_NAMES; do
    eval "[[ -n \${FC_CLUSTER_${missing}_PASSWORD:-} ]]" && continue
    [[ ${1:-} == create ]] || continue
    (
      umask 077
      printf 'FC_CLUSTER_%s_PASSWORD=%s\n' "$missing" "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" \
        >>"$FC_CLUSTER_SECRETS"
    )
    # shellcheck disable=SC1090 # appended above
    . "$FC_CLUSTER_SECRETS"
  done
}
FC_CLUSTER_SECRET_NAMES='REDIS_ADMIN REDIS_API REDIS_WORKER KAFKA_ADMIN KAFKA_API KAFKA_WORKER DB_MIGRATION DB_API DB_WORKER'

# The MySQL users of the cluster's database (deploy/mysql-migration-user.sql, deploy/mysql-users.sql, through
# bin/lib/mysql-users.sh): coupon_migration migrates the schema (bin/lib/Migrate.java, before the apps start), then
# coupon_api and coupon_worker get their grants, and each app works as its own user and never migrates. As the
# server's root, on the default cluster database only; otherwise the apps keep COUPON_DB_USER and migrate as it.
FC_CLUSTER_DB_USERS_MARK="$FC_CLUSTER_RUN/db-users"
fc_cluster_db_users() {
  rm -f "$FC_CLUSTER_DB_USERS_MARK"
  fc_db_parse
  if [[ $COUPON_DB_URL != "$FC_CLUSTER_DEFAULT_DB_URL" ]]; then
    fc_note "Database: COUPON_DB_URL is your own: the apps work and migrate as $COUPON_DB_USER"
    return 0
  fi
  fc_cluster_secrets
  local cp log="$FC_CLUSTER_LOGS/db-users.log"
  # given to the two mysql-users.sh calls only: an app started from this shell must not inherit another's password
  if ! env COUPON_DB_MIGRATION_USER=coupon_migration COUPON_DB_MIGRATION_PASSWORD="$FC_CLUSTER_DB_MIGRATION_PASSWORD" \
    "$FC_ROOT/bin/lib/mysql-users.sh" migration "$FC_DB_NAME" | fc_db_root_sql; then
    fc_note "Database: no root access to make the apps' own MySQL users ($(tr '\n' ' ' <"$FC_LOGS/db-setup.log")):" \
      "the apps work and migrate as $COUPON_DB_USER"
    return 0
  fi
  cp=$(fc_db_classpath)
  if ! env FC_DB_MIGRATION_USER=coupon_migration FC_DB_MIGRATION_PASSWORD="$FC_CLUSTER_DB_MIGRATION_PASSWORD" \
    "$JAVA_HOME/bin/java" -cp "$cp:$FC_ROOT/db/target/classes" "$FC_ROOT/bin/lib/Migrate.java" "$COUPON_DB_URL" \
    >"$log" 2>&1; then
    fc_tail "$log"
    fc_die "could not migrate \`$FC_DB_NAME\` as coupon_migration (log: .run/cluster/logs/db-users.log)"
  fi
  env COUPON_DB_API_USER=coupon_api COUPON_DB_API_PASSWORD="$FC_CLUSTER_DB_API_PASSWORD" \
    COUPON_DB_WORKER_USER=coupon_worker COUPON_DB_WORKER_PASSWORD="$FC_CLUSTER_DB_WORKER_PASSWORD" \
    "$FC_ROOT/bin/lib/mysql-users.sh" apps "$FC_DB_NAME" | fc_db_root_sql ||
    fc_die "could not give coupon_api and coupon_worker their grants: $(tr '\n' ' ' <"$FC_LOGS/db-setup.log")"
  : >"$FC_CLUSTER_DB_USERS_MARK"
  fc_info "Database: \`$FC_DB_NAME\` migrated as coupon_migration ($(tail -n 1 "$log")); the apps work as coupon_api" \
    "and coupon_worker, each with its own grants"
}

# The db module's runtime class path (Flyway, its MySQL support, the driver), resolved once into .run/.
fc_db_classpath() {
  local file="$FC_RUN/db-classpath.txt"
  if [[ ! -s $file || $FC_ROOT/db/pom.xml -nt $file || $FC_ROOT/pom.xml -nt $file ]]; then
    fc_note "resolving the migrations' jars (./mvnw -pl db dependency:build-classpath)" >&2
    if ! (cd "$FC_ROOT" && ./mvnw -q -B -pl db dependency:build-classpath -Dmdep.includeScope=runtime \
      -Dmdep.outputFile="$file.tmp") >"$FC_LOGS/db-classpath.log" 2>&1; then
      fc_tail "$FC_LOGS/db-classpath.log"
      fc_die "could not resolve the db module's dependencies (log: .run/logs/db-classpath.log)"
    fi
    mv "$file.tmp" "$file"
  fi
  [[ -d $FC_ROOT/db/target/classes/db/migration ]] || fc_die "db/target/classes is missing: build first"
  cat "$file"
}

# The settings that make an app of the cluster its own user of Redis and Kafka: APP is api or issuer-worker. One
# VAR=value per line, for env(1).
fc_cluster_app_access() {
  fc_cluster_secrets
  local user=coupon-api redis=$FC_CLUSTER_REDIS_API_PASSWORD kafka=$FC_CLUSTER_KAFKA_API_PASSWORD
  if [[ $1 == issuer-worker ]]; then
    user=coupon-worker redis=$FC_CLUSTER_REDIS_WORKER_PASSWORD kafka=$FC_CLUSTER_KAFKA_WORKER_PASSWORD
  fi
  printf '%s\n' "COUPON_REDIS_USER=$user" "COUPON_REDIS_PASSWORD=$redis" \
    COUPON_KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT "COUPON_KAFKA_USER=$user" "COUPON_KAFKA_PASSWORD=$kafka" \
    COUPON_KAFKA_CREATE_TOPICS=false
  # and of MySQL, when bin/up --cluster made the users (fc_cluster_db_users)
  if [[ -e $FC_CLUSTER_DB_USERS_MARK ]]; then
    if [[ $1 == issuer-worker ]]; then
      printf '%s\n' COUPON_DB_USER=coupon_worker "COUPON_DB_PASSWORD=$FC_CLUSTER_DB_WORKER_PASSWORD"
    else
      printf '%s\n' COUPON_DB_USER=coupon_api "COUPON_DB_PASSWORD=$FC_CLUSTER_DB_API_PASSWORD"
    fi
    printf '%s\n' COUPON_DB_MIGRATE=false
  fi
}

# For bin/up --cluster: what it needs and is missing, installed at once (apt-get): redis-server (the six nodes and
# redis-cli), mariadb-server when no database answers on this machine, haproxy.
fc_cluster_install_missing() {
  local missing=()
  fc_find_program redis-server >/dev/null && fc_have redis-cli || missing+=(redis-server)
  fc_db_parse
  if ! fc_db_up && fc_is_local_host "$FC_DB_HOST" && ! fc_mariadb_server_program >/dev/null; then
    missing+=(mariadb-server)
  fi
  fc_find_program haproxy >/dev/null || missing+=(haproxy)
  ((${#missing[@]} == 0)) && return 0
  fc_apt_install "the cluster topology (bin/up --cluster)" "${missing[@]}"
}

# ---------------------------------------------------------------------------------------------------------------- Redis

fc_cluster_redis_ports() {
  local ports
  read -r -a ports <<<"$FC_CLUSTER_REDIS_PORTS"
  ((${#ports[@]} >= 6 && ${#ports[@]} % 2 == 0)) ||
    fc_die "FC_CLUSTER_REDIS_PORTS needs an even number of ports, at least six (three masters, a replica each)"
  printf '%s\n' "${ports[@]}"
}

# redis-cli on the node on PORT, as coupon-admin.
fc_cluster_redis_cli() {
  local port=$1
  shift
  fc_cluster_secrets
  redis-cli -h 127.0.0.1 -p "$port" --user coupon-admin --pass "${FC_CLUSTER_REDIS_ADMIN_PASSWORD:-}" --no-auth-warning "$@"
}

fc_cluster_redis_pidfile() { printf '%s/redis-%s.pid\n' "$FC_CLUSTER_RUN" "$1"; }

# Starts the node on PORT unless it runs. Each node is started from deploy/redis.conf, so AOF with appendfsync
# always, as the single stack's Redis: the six nodes share this machine's disk and power, so a replica is no copy
# against the machine's crash; only the fsync before the answer is (docs/operations.md, "A cluster on one machine").
# A primary without a replica refuses writes (min-replicas-to-write 1): after a failover, until the old primary is back
# as a replica, admissions are answered 503 with nothing written, rather than written on a lone copy and answered 503
# with an unknown outcome by the replica wait (COUPON_REDIS_MIN_REPLICAS).
fc_cluster_redis_start() {
  local port=$1 pidfile server dir
  pidfile=$(fc_cluster_redis_pidfile "$port")
  fc_pid_of "$pidfile" redis-server >/dev/null && return 1
  local p
  for p in "$port" $((port + 10000)); do
    fc_port_open 127.0.0.1 "$p" && fc_die "port $p (Redis node $port or its cluster bus) is taken by another program." \
      "Free it, or choose other ports: FC_CLUSTER_REDIS_PORTS='...' (bin/lib/env.sh)"
  done
  server=$(fc_find_program redis-server) || fc_die "redis-server is not installed (apt-get install redis-server)"
  dir="$FC_CLUSTER_RUN/redis-$port"
  mkdir -p "$dir" "$FC_CLUSTER_LOGS"
  # The users, with their passwords' hashes, written on every start; replicas authenticate to their primary as
  # coupon-admin.
  fc_cluster_secrets create
  COUPON_REDIS_API_PASSWORD=$FC_CLUSTER_REDIS_API_PASSWORD COUPON_REDIS_WORKER_PASSWORD=$FC_CLUSTER_REDIS_WORKER_PASSWORD \
    COUPON_REDIS_ADMIN_PASSWORD=$FC_CLUSTER_REDIS_ADMIN_PASSWORD \
    "$FC_ROOT/bin/lib/redis-acl.sh" "$FC_ROOT/deploy/redis-users.acl" "$dir/users.acl"
  "$server" "$FC_REDIS_CONF" --port "$port" --bind 127.0.0.1 --dir "$dir" --daemonize yes --pidfile "$pidfile" \
    --aclfile "$dir/users.acl" --masteruser coupon-admin --masterauth "$FC_CLUSTER_REDIS_ADMIN_PASSWORD" \
    --logfile "$FC_CLUSTER_LOGS/redis-$port.log" --cluster-enabled yes --cluster-config-file nodes.conf \
    --cluster-node-timeout "${FC_CLUSTER_REDIS_NODE_TIMEOUT:-5000}" \
    --min-replicas-to-write 1 --min-replicas-max-lag 10 || {
    fc_tail "$FC_CLUSTER_LOGS/redis-$port.log"
    fc_die "redis-server on port $port did not start (log: .run/cluster/logs/redis-$port.log)"
  }
}

fc_cluster_redis_field() { # PORT FIELD: a field of CLUSTER INFO
  fc_cluster_redis_cli "$1" cluster info 2>/dev/null | tr -d '\r' | sed -n "s/^$2://p"
}

# True when the node on PORT sees the whole cluster served: every slot assigned and cluster_state ok.
fc_cluster_redis_ok() {
  [[ $(fc_cluster_redis_field "$1" cluster_state) == ok && $(fc_cluster_redis_field "$1" cluster_slots_ok) == 16384 ]]
}

# The number of masters that have a replica online (INFO replication's slaveN lines say state=online).
fc_cluster_redis_replicated_masters() {
  local port count=0 info
  for port in $(fc_cluster_redis_ports); do
    info=$(fc_cluster_redis_cli "$port" info replication 2>/dev/null | tr -d '\r')
    [[ $info == *role:master* && $info == *state=online* ]] && count=$((count + 1))
  done
  printf '%s\n' "$count"
}

fc_cluster_redis_all_ok() {
  local port
  for port in $(fc_cluster_redis_ports); do
    fc_cluster_redis_ok "$port" || return 1
  done
  (($(fc_cluster_redis_replicated_masters) * 2 >= $(fc_cluster_redis_ports | wc -l)))
}

fc_cluster_ensure_redis() {
  local ports=() port started=0 running=0 nodes=()
  mapfile -t ports < <(fc_cluster_redis_ports)
  for port in "${ports[@]}"; do
    if fc_cluster_redis_start "$port"; then
      started=$((started + 1))
    else
      running=$((running + 1))
    fi
    nodes+=("127.0.0.1:$port")
  done
  fc_info "Redis Cluster on ports ${ports[*]}: $running running, $started started (AOF always, data in .run/cluster/redis-<port>)"
  for port in "${ports[@]}"; do
    fc_wait_until 30 fc_cluster_redis_ping "$port" || {
      fc_tail "$FC_CLUSTER_LOGS/redis-$port.log"
      fc_die "Redis node $port does not answer after 30 s (log: .run/cluster/logs/redis-$port.log)"
    }
  done
  # A node started from a nodes.conf rejoins its cluster by itself. Only six nodes that each know nobody but
  # themselves, with no slot assigned, make a new cluster (so a second bin/up --cluster never re-creates one).
  local fresh=1
  for port in "${ports[@]}"; do
    [[ $(fc_cluster_redis_field "$port" cluster_known_nodes) == 1 &&
      $(fc_cluster_redis_field "$port" cluster_slots_assigned) == 0 ]] || fresh=0
  done
  if ((fresh)); then
    fc_note "creating the cluster: redis-cli --cluster create ${nodes[*]} --cluster-replicas 1"
    if ! redis-cli --user coupon-admin --pass "$FC_CLUSTER_REDIS_ADMIN_PASSWORD" --no-auth-warning \
      --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes \
      >"$FC_CLUSTER_LOGS/redis-cluster-create.log" 2>&1; then
      fc_tail "$FC_CLUSTER_LOGS/redis-cluster-create.log"
      fc_die "redis-cli --cluster create failed (log: .run/cluster/logs/redis-cluster-create.log)"
    fi
  fi
  if ! fc_wait_until 60 fc_cluster_redis_all_ok; then
    redis-cli --user coupon-admin --pass "$FC_CLUSTER_REDIS_ADMIN_PASSWORD" --no-auth-warning \
      --cluster check "${nodes[0]}" >&2 || true
    fc_die "the Redis Cluster is not serving every slot with a replica per master after 60 s." \
      "Its nodes' logs: .run/cluster/logs/redis-<port>.log. To start over from nothing: bin/down --purge"
  fi
  fc_note "Redis Cluster: all 16384 slots served, $(fc_cluster_redis_replicated_masters) masters with a replica online"
}

fc_cluster_redis_ping() { [[ $(fc_cluster_redis_cli "$1" ping 2>/dev/null) == PONG ]]; }

fc_cluster_stop_redis() {
  local port replicas=() masters=()
  for port in $(fc_cluster_redis_ports); do
    [[ -e $(fc_cluster_redis_pidfile "$port") ]] || continue
    if [[ $(fc_cluster_redis_cli "$port" role 2>/dev/null | head -n 1) == slave ]]; then
      replicas+=("$port")
    else
      masters+=("$port")
    fi
  done
  # SIGTERM is Redis' clean shutdown: it finishes the AOF write and exits. Replicas first, so that no replica sees
  # its master leave and starts an election on its own way down.
  for port in "${replicas[@]}" "${masters[@]}"; do
    fc_stop_pid "Redis node $port" "$(fc_cluster_redis_pidfile "$port")" redis-server 30
  done
}

# ---------------------------------------------------------------------------------------------------------------- Kafka

fc_cluster_kafka_ports() {
  local ports controllers
  read -r -a ports <<<"$FC_CLUSTER_KAFKA_PORTS"
  read -r -a controllers <<<"$FC_CLUSTER_KAFKA_CONTROLLER_PORTS"
  ((${#ports[@]} == 3 && ${#controllers[@]} == 3)) ||
    fc_die "FC_CLUSTER_KAFKA_PORTS and FC_CLUSTER_KAFKA_CONTROLLER_PORTS need three ports each"
}

# fc_cluster_kafka_node I: makes the Ith Kafka node (1..3) the current one of kafka.sh.
fc_cluster_kafka_node() {
  local i=$1 voters='' n
  for n in 1 2 3; do
    voters+="${voters:+,}$n@127.0.0.1:$(fc_nth "$n" "$FC_CLUSTER_KAFKA_CONTROLLER_PORTS")"
  done
  fc_kafka_node "Kafka node $i" "$i" 127.0.0.1 "$(fc_nth "$i" "$FC_CLUSTER_KAFKA_PORTS")" \
    "$(fc_nth "$i" "$FC_CLUSTER_KAFKA_CONTROLLER_PORTS")" "$FC_CLUSTER_RUN/kafka-$i" "$FC_CLUSTER_RUN/kafka-$i.pid" \
    "$FC_CLUSTER_LOGS" "kafka-$i"
  FC_KAFKA_VOTERS=$voters
  FC_KAFKA_RF=3
  FC_KAFKA_CLUSTER_ID_FILE="$FC_CLUSTER_RUN/kafka-cluster-id"
  fc_cluster_secrets
  FC_KAFKA_ADMIN_PASSWORD=${FC_CLUSTER_KAFKA_ADMIN_PASSWORD:-}
}

fc_cluster_ensure_kafka() {
  fc_cluster_kafka_ports
  local cp i started=()
  cp=$(fc_kafka_classpath)
  mkdir -p "$FC_CLUSTER_RUN" "$FC_CLUSTER_LOGS"
  for i in 1 2 3; do
    fc_cluster_kafka_node "$i"
    fc_kafka_launch "$cp" "${FC_CLUSTER_KAFKA_JAVA_OPTS:--Xms128m -Xmx256m}" && started+=("$i")
  done
  ((${#started[@]} > 0)) && fc_info "Kafka: started node(s) ${started[*]} of 3 (KRaft quorum, data in .run/cluster/kafka-N)"
  # The three come up together: a node's controller waits for a quorum before its broker serves.
  for i in 1 2 3; do
    fc_cluster_kafka_node "$i"
    fc_kafka_wait "$(<"$FC_KAFKA_PID")" "node $i running (pid $(<"$FC_KAFKA_PID"))"
  done
  fc_kafka_check "$cp" "$COUPON_KAFKA_BOOTSTRAP" 3 "$FC_CLUSTER_LOGS/kafka-check.log"
}

# The apps' Kafka users, their ACLs and the topics (which the apps may not create): bin/lib/KafkaUsers.java, with the
# contract module's classes (after the build).
fc_cluster_kafka_users() {
  local cp log="$FC_CLUSTER_LOGS/kafka-users.log"
  cp=$(fc_kafka_classpath)
  [[ -d $FC_ROOT/contract/target/classes/com ]] || fc_die "contract/target/classes is missing: build first (./mvnw -pl contract compile)"
  fc_cluster_secrets
  if ! env FC_KAFKA_ADMIN_PASSWORD="$FC_CLUSTER_KAFKA_ADMIN_PASSWORD" FC_KAFKA_API_PASSWORD="$FC_CLUSTER_KAFKA_API_PASSWORD" \
    FC_KAFKA_WORKER_PASSWORD="$FC_CLUSTER_KAFKA_WORKER_PASSWORD" \
    "$JAVA_HOME/bin/java" -cp "$cp:$FC_ROOT/contract/target/classes" "$FC_ROOT/bin/lib/KafkaUsers.java" \
    "$COUPON_KAFKA_BOOTSTRAP" "${COUPON_KAFKA_PARTITIONS:-3}" 3 >"$log" 2>&1; then
    fc_tail "$log"
    fc_die "could not create the apps' Kafka users and topics (log: .run/cluster/logs/kafka-users.log)"
  fi
  fc_note "$(tail -n 1 "$log")"
}

fc_cluster_stop_kafka() {
  local i pid
  # All three at once: a node stopped after the other two waits for a quorum that is gone (a minute, then it is
  # killed), while three stopping together finish their controlled shutdown while the quorum still stands.
  for i in 1 2 3; do
    fc_cluster_kafka_node "$i"
    pid=$(fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN") && kill -TERM "$pid" 2>/dev/null
  done
  for i in 1 2 3; do
    fc_cluster_kafka_node "$i"
    [[ -e $FC_KAFKA_PID ]] && fc_stop_kafka_node
  done
  return 0
}

# ---------------------------------------------------------------------------------------------------------------- HAProxy

FC_CLUSTER_HAPROXY_CFG="$FC_CLUSTER_RUN/haproxy.cfg"
FC_CLUSTER_HAPROXY_PID="$FC_CLUSTER_RUN/haproxy.pid"

# haproxy.cfg for the api instances of FC_CLUSTER_API_PORTS, on FC_CLUSTER_LB_PORT. Printed, not written.
fc_cluster_haproxy_config() {
  local port n=0
  cat <<EOF
# Written by bin/up --cluster (bin/lib/cluster.sh) on every start: edit that script, not this file.
global
  # Each connection takes two file descriptors (member and api side): 4,000 stays within a common limit of 10,000.
  maxconn 4000
  # Errors and refused or broken requests only (option dontlog-normal): a crowd's 200s and 202s are not logged.
  log stdout format raw local0

defaults
  mode http
  log global
  option httplog
  option dontlog-normal
  # The member's address for the apis' per-address rate limit: they trust it from 127.0.0.1 only
  # (COUPON_TRUSTED_PROXIES).
  option forwardfor
  # Only a failed connection is retried, on the other api; a request that reached an api is never sent twice.
  retries 2
  option redispatch
  timeout connect 2s
  # Member status streams (SSE) stay open for minutes: the api writes a heartbeat every 15 s, so a stream is idle
  # for 15 s at most. 75 s lets four heartbeats go missing before the balancer cuts it.
  timeout client 75s
  timeout server 75s
  timeout client-fin 5s
  timeout http-request 10s
  timeout http-keep-alive 60s
  timeout queue 5s

frontend coupon
  bind 127.0.0.1:$FC_CLUSTER_LB_PORT
  default_backend apis

backend apis
  # Long-lived streams and short requests mixed: the api with the fewest open connections gets the next one.
  balance leastconn
  # The whole health (the instance's readiness and its Redis, MySQL and Kafka, /actuator/health): an api that lost
  # one is taken out and comes back by itself. Readiness alone is the instance only (a Kubernetes Service cannot fail
  # open as this balancer does, docs/kubernetes.md); here the fail-open below makes the stricter check safe.
  # A busy machine answers it slowly (the first demo on a loaded machine saw 2 s check time-outs take both apis out
  # and the balancer answer 20,855 requests 503 itself), so 5 s and three misses before an api is out.
  option httpchk GET /actuator/health
  http-check expect status 200
  timeout check 5s
  default-server inter 2s fall 3 rise 2
  # When every api fails its check, the balancer fails open: the same apis, unchecked, as backups. An api that cannot
  # admit answers 503 with Retry-After itself (it watches Redis, MySQL and Kafka on its own); a slow health check
  # must not turn a busy minute into a refused crowd.
  option allbackups
EOF
  for port in $FC_CLUSTER_API_PORTS; do
    n=$((n + 1))
    printf '  server api-%s 127.0.0.1:%s check\n' "$n" "$port"
  done
  n=0
  for port in $FC_CLUSTER_API_PORTS; do
    n=$((n + 1))
    printf '  server api-%s-open 127.0.0.1:%s backup\n' "$n" "$port"
  done
}

fc_cluster_lb_url() { printf 'http://127.0.0.1:%s\n' "$FC_CLUSTER_LB_PORT"; }

fc_cluster_lb_ready() { fc_health_up "$(fc_cluster_lb_url)/actuator/health"; }

# Starts HAProxy unless it runs with the same configuration (restarts it when the configuration changed), then waits
# until it answers with a ready api.
fc_cluster_ensure_haproxy() {
  local haproxy pid new="$FC_CLUSTER_HAPROXY_CFG.new"
  haproxy=$(fc_find_program haproxy) || fc_die "haproxy is not installed (apt-get install haproxy)"
  mkdir -p "$FC_CLUSTER_RUN" "$FC_CLUSTER_LOGS"
  fc_cluster_haproxy_config >"$new"
  if pid=$(fc_pid_of "$FC_CLUSTER_HAPROXY_PID" haproxy); then
    if cmp -s "$new" "$FC_CLUSTER_HAPROXY_CFG"; then
      rm -f "$new"
      fc_info "HAProxy on port $FC_CLUSTER_LB_PORT: running (pid $pid)"
      return 0
    fi
    fc_info "HAProxy: its configuration changed: restarting it"
    fc_stop_pid HAProxy "$FC_CLUSTER_HAPROXY_PID" haproxy 10
  fi
  mv -f "$new" "$FC_CLUSTER_HAPROXY_CFG"
  if ! "$haproxy" -c -q -f "$FC_CLUSTER_HAPROXY_CFG" >"$FC_CLUSTER_LOGS/haproxy-check.log" 2>&1; then
    fc_tail "$FC_CLUSTER_LOGS/haproxy-check.log"
    fc_die "haproxy refuses the configuration .run/cluster/haproxy.cfg"
  fi
  fc_port_open 127.0.0.1 "$FC_CLUSTER_LB_PORT" &&
    fc_die "port $FC_CLUSTER_LB_PORT (the balancer) is taken by another program." \
      "Free it, or choose another: FC_CLUSTER_LB_PORT=<port> bin/up --cluster"
  # -db: in the foreground, so the pid file names haproxy itself and its log goes to our log file.
  fc_start_bg "$FC_CLUSTER_HAPROXY_PID" "$FC_CLUSTER_LOGS/haproxy.log" "$haproxy" -db -f "$FC_CLUSTER_HAPROXY_CFG"
  pid=$(<"$FC_CLUSTER_HAPROXY_PID")
  fc_info "HAProxy on port $FC_CLUSTER_LB_PORT: started (pid $pid, config .run/cluster/haproxy.cfg)"
  local deadline=$((SECONDS + 30))
  until fc_cluster_lb_ready; do
    if ! fc_pid_of "$FC_CLUSTER_HAPROXY_PID" haproxy >/dev/null || ((SECONDS >= deadline)); then
      fc_tail "$FC_CLUSTER_LOGS/haproxy.log"
      fc_die "HAProxy does not report an api ready at $(fc_cluster_lb_url)/actuator/health" \
        "(log: .run/cluster/logs/haproxy.log)"
    fi
    sleep 1
  done
}

fc_cluster_stop_haproxy() {
  [[ -e $FC_CLUSTER_HAPROXY_PID ]] || return 0
  fc_stop_pid HAProxy "$FC_CLUSTER_HAPROXY_PID" haproxy 10
}

# ---------------------------------------------------------------------------------------------------------------- all

# True when the balancer reports an api ready and every cluster app reports UP on its own port (bin/demo --cluster).
fc_cluster_healthy() {
  local app
  fc_cluster_lb_ready || return 1
  for app in "${FC_CLUSTER_APPS[@]}"; do
    fc_app "$app"
    fc_health_up "$(fc_health_url "$FC_APP_PORT")" || return 1
  done
}

# Prints "NAME PID" for every process of the cluster that runs (for bin/demo --cluster's cost figures).
fc_cluster_processes() {
  local port i app pid
  for port in $(fc_cluster_redis_ports); do
    pid=$(fc_pid_of "$(fc_cluster_redis_pidfile "$port")" redis-server) && printf 'redis-%s %s\n' "$port" "$pid"
  done
  for i in 1 2 3; do
    fc_cluster_kafka_node "$i"
    pid=$(fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN") && printf 'kafka-%s %s\n' "$i" "$pid"
  done
  for app in "${FC_CLUSTER_APPS[@]}"; do
    fc_app "$app"
    pid=$(fc_pid_of "$FC_APP_PID" "$(basename "$FC_APP_JAR")") && printf '%s %s\n' "${app#cluster-}" "$pid"
  done
  pid=$(fc_pid_of "$FC_CLUSTER_HAPROXY_PID" haproxy) && printf 'haproxy %s\n' "$pid"
  return 0
}

# Stops the whole topology: the balancer (no new requests), the apps (they flush to Kafka, Redis and MySQL), the
# brokers, then Redis.
fc_cluster_stop() {
  [[ -d $FC_CLUSTER_RUN ]] || return 0
  local app
  fc_cluster_stop_haproxy
  for app in "${FC_CLUSTER_APPS[@]}"; do
    fc_stop_app "$app"
  done
  fc_cluster_stop_kafka
  fc_cluster_stop_redis
  rm -f "$FC_CLUSTER_RUN/tokens.env"
}
