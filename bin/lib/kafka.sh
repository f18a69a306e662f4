# shellcheck shell=bash
# Local KRaft Kafka nodes from the kafka-local module's jars (Maven Central), each its own process with main class
# kafka.Kafka, each broker and controller at once. bin/up runs one (data in .run/kafka, log in .run/logs/kafka.log,
# pid in .run/kafka.pid); bin/up --cluster runs three as a quorum (bin/lib/cluster.sh). Needs common.sh, env.sh and
# bin/lib/jdk.sh (JAVA_HOME) sourced. Not used by CI: the tests embed their own broker.
#
# Settings beyond env.sh (rarely needed):
#   FC_KAFKA_CONTROLLER_PORT  the single broker's KRaft controller port (default: the broker's port + 1, so 9093)
#   FC_KAFKA_JAVA_OPTS        JVM options of the single broker (default: -Xms256m -Xmx512m)

FC_KAFKA_MAIN=kafka.Kafka
# The jars are the same for every node: resolved once.
FC_KAFKA_CLASSPATH_FILE="$FC_RUN/kafka/classpath.txt"

# fc_kafka_node NAME ID HOST PORT CONTROLLER_PORT DIR PIDFILE LOGDIR LOGNAME: the node the next calls act on. Its log
# is LOGDIR/LOGNAME.log (the broker's own), LOGDIR/LOGNAME.out (stdout and stderr). The caller also sets
# FC_KAFKA_VOTERS (controller.quorum.voters), FC_KAFKA_RF (replication factor of every topic) and, for a quorum,
# FC_KAFKA_CLUSTER_ID_FILE (where the id all its nodes are formatted with is kept).
fc_kafka_node() {
  FC_KAFKA_NAME=$1 FC_KAFKA_NODE_ID=$2 FC_KAFKA_HOST=$3 FC_KAFKA_PORT=$4 FC_KAFKA_CONTROLLER_PORT=$5
  FC_KAFKA_DIR=$6 FC_KAFKA_PID=$7 FC_KAFKA_LOGDIR=$8 FC_KAFKA_LOGNAME=$9
}

# The single broker of bin/up, from COUPON_KAFKA_BOOTSTRAP.
fc_kafka_parse() {
  fc_parse_addr "$COUPON_KAFKA_BOOTSTRAP" 9092
  local controller=${FC_KAFKA_CONTROLLER_PORT:-$((FC_ADDR_PORT + 1))}
  fc_kafka_node "Kafka broker" 1 "$FC_ADDR_HOST" "$FC_ADDR_PORT" "$controller" "$FC_RUN/kafka" "$FC_RUN/kafka.pid" \
    "$FC_LOGS" kafka
  FC_KAFKA_VOTERS="1@$(fc_kafka_listen_host):$controller"
  FC_KAFKA_RF=1
  FC_KAFKA_CLUSTER_ID_FILE=''
  FC_KAFKA_ADMIN_PASSWORD=''
}

# The node's host as Kafka's listeners want it: an address, IPv6 literals in brackets.
fc_kafka_listen_host() {
  local host=$FC_KAFKA_HOST
  [[ $host == localhost || $host == 0.0.0.0 || -z $host ]] && host=127.0.0.1
  [[ $host == *:* ]] && host="[$host]"
  printf '%s\n' "$host"
}

# A path as the messages show it: relative to the repository.
fc_kafka_rel() { printf '%s\n' "${1#"$FC_ROOT"/}"; }
fc_kafka_up() { fc_port_open "$FC_KAFKA_HOST" "$FC_KAFKA_PORT"; }

# Prints the broker's classpath, from .run/kafka/classpath.txt; asks Maven for it again when that file is missing,
# older than the poms, or names a jar that is gone.
fc_kafka_classpath() {
  local file=$FC_KAFKA_CLASSPATH_FILE stale=0 jar
  mkdir -p "$(dirname "$file")" "$FC_LOGS"
  if [[ ! -s $file || $FC_ROOT/kafka-local/pom.xml -nt $file || $FC_ROOT/pom.xml -nt $file ]]; then
    stale=1
  else
    local IFS=:
    for jar in $(<"$file"); do
      [[ -f $jar ]] || {
        stale=1
        break
      }
    done
  fi
  if ((stale)); then
    fc_note "resolving the broker's jars (./mvnw -pl kafka-local dependency:build-classpath)" >&2
    if ! (cd "$FC_ROOT" && ./mvnw -q -B -pl kafka-local dependency:build-classpath \
      -Dmdep.outputFile="$file.tmp") >"$FC_LOGS/kafka-classpath.log" 2>&1; then
      fc_tail "$FC_LOGS/kafka-classpath.log"
      fc_die "could not resolve the kafka-local module's dependencies (log: .run/logs/kafka-classpath.log)"
    fi
    mv "$file.tmp" "$file"
  fi
  cat "$file"
}

# server.properties of the current node (broker and controller at once), written on every start from the settings.
fc_kafka_write_config() {
  local host rf=$FC_KAFKA_RF min_isr=1
  host=$(fc_kafka_listen_host)
  # One replica may be down and writes (acks=all) still succeed; with a single broker that is 1.
  ((rf > 1)) && min_isr=$((rf - 1))
  mkdir -p "$FC_KAFKA_DIR"
  local listeners
  if [[ -n $FC_KAFKA_ADMIN_PASSWORD ]]; then
    # Every client authenticates (bin/up --cluster): SASL/SCRAM-SHA-512 on the brokers' listener (the apps, and the
    # brokers between themselves as coupon-admin, whose credential the storage was formatted with), SASL/PLAIN as
    # coupon-admin on the controllers' (KRaft bootstraps no SCRAM there); StandardAuthorizer, nothing without an ACL
    # (the apps' are the contract's KafkaAccess, granted by KafkaUsers.java).
    listeners=$(
      cat <<SECURE
listeners=SASL_PLAINTEXT://$host:$FC_KAFKA_PORT,CONTROLLER://$host:$FC_KAFKA_CONTROLLER_PORT
advertised.listeners=SASL_PLAINTEXT://$host:$FC_KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=SASL_PLAINTEXT
listener.security.protocol.map=SASL_PLAINTEXT:SASL_PLAINTEXT,CONTROLLER:SASL_PLAINTEXT
sasl.mechanism.inter.broker.protocol=SCRAM-SHA-512
sasl.mechanism.controller.protocol=PLAIN
listener.name.sasl_plaintext.sasl.enabled.mechanisms=SCRAM-SHA-512
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="coupon-admin" password="$FC_KAFKA_ADMIN_PASSWORD";
listener.name.controller.sasl.enabled.mechanisms=PLAIN
listener.name.controller.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="coupon-admin" password="$FC_KAFKA_ADMIN_PASSWORD" user_coupon-admin="$FC_KAFKA_ADMIN_PASSWORD";
authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer
super.users=User:coupon-admin
allow.everyone.if.no.acl.found=false
SECURE
    )
  else
    listeners=$(
      cat <<PLAIN
listeners=PLAINTEXT://$host:$FC_KAFKA_PORT,CONTROLLER://$host:$FC_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$host:$FC_KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
PLAIN
    )
  fi
  (
    umask 077
    cat >"$FC_KAFKA_DIR/server.properties" <<EOF
# Written by bin/up (bin/lib/kafka.sh) on every start: edit that script, not this file.
process.roles=broker,controller
node.id=$FC_KAFKA_NODE_ID
controller.quorum.voters=$FC_KAFKA_VOTERS
$listeners
log.dirs=$FC_KAFKA_DIR/data
num.partitions=1
offsets.topic.replication.factor=$rf
transaction.state.log.replication.factor=$rf
transaction.state.log.min.isr=$min_isr
share.coordinator.state.topic.replication.factor=$rf
share.coordinator.state.topic.min.isr=$min_isr
default.replication.factor=$rf
min.insync.replicas=$min_isr
group.initial.rebalance.delay.ms=0
# A developer's machine: keep a week or 1 GiB per partition, whichever comes first.
log.retention.hours=168
log.retention.bytes=1073741824
EOF
  )
}

fc_kafka_java() {
  local cp=$1
  shift
  "$JAVA_HOME/bin/java" -cp "$cp" "$@"
}

# Formats the node's storage once (KRaft needs a cluster id in meta.properties before the first start). The nodes of
# a quorum share one id, kept in FC_KAFKA_CLUSTER_ID_FILE.
fc_kafka_format() {
  local cp=$1 uuid log="$FC_KAFKA_LOGDIR/$FC_KAFKA_LOGNAME-format.log"
  if [[ -f $FC_KAFKA_DIR/data/meta.properties ]]; then
    [[ -z $FC_KAFKA_ADMIN_PASSWORD || -f $FC_KAFKA_DIR/data/.flash-coupon-scram ]] ||
      fc_die "$FC_KAFKA_NAME's storage was formatted without authentication (an older bin/up --cluster)." \
        "Start it over from nothing: bin/down --purge"
    return 0
  fi
  local scram=()
  [[ -n $FC_KAFKA_ADMIN_PASSWORD ]] &&
    scram=(--add-scram "SCRAM-SHA-512=[name=coupon-admin,password=$FC_KAFKA_ADMIN_PASSWORD]")
  fc_note "formatting the storage of $FC_KAFKA_NAME ($(fc_kafka_rel "$FC_KAFKA_DIR/data"))"
  if [[ -n $FC_KAFKA_CLUSTER_ID_FILE && -s $FC_KAFKA_CLUSTER_ID_FILE ]]; then
    uuid=$(<"$FC_KAFKA_CLUSTER_ID_FILE")
  else
    uuid=$(fc_kafka_java "$cp" kafka.tools.StorageTool random-uuid 2>>"$log") ||
      fc_die "kafka.tools.StorageTool random-uuid failed (log: $(fc_kafka_rel "$log"))"
    [[ -n $FC_KAFKA_CLUSTER_ID_FILE ]] && printf '%s\n' "$uuid" >"$FC_KAFKA_CLUSTER_ID_FILE"
  fi
  if ! fc_kafka_java "$cp" kafka.tools.StorageTool format -t "$uuid" -c "$FC_KAFKA_DIR/server.properties" \
    "${scram[@]}" >>"$log" 2>&1; then
    fc_tail "$log"
    fc_die "formatting the storage of $FC_KAFKA_NAME failed (log: $(fc_kafka_rel "$log"))"
  fi
  [[ -n $FC_KAFKA_ADMIN_PASSWORD ]] && : >"$FC_KAFKA_DIR/data/.flash-coupon-scram"
  return 0
}

fc_kafka_alive_and_listening() {
  fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN" >/dev/null || return 2
  fc_kafka_up
}

# Starts the current node unless it runs (then prints its pid); dies when its ports are taken by another program.
# Prints nothing and returns 1 when it was already running. Does not wait.
fc_kafka_launch() {
  local cp=$1 opts_text=$2 pid
  if pid=$(fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN"); then
    return 1
  fi
  local port
  for port in "$FC_KAFKA_PORT" "$FC_KAFKA_CONTROLLER_PORT"; do
    if fc_port_open "$FC_KAFKA_HOST" "$port"; then
      fc_die "port $port ($FC_KAFKA_NAME) is taken by another program (not started by bin/up)." \
        "Free it, or choose other ports (bin/lib/env.sh)."
    fi
  done
  fc_kafka_write_config
  fc_kafka_format "$cp"
  local opts out="$FC_KAFKA_LOGDIR/$FC_KAFKA_LOGNAME.out"
  read -r -a opts <<<"$opts_text"
  mkdir -p "$FC_KAFKA_LOGDIR"
  [[ -f $out ]] && mv -f "$out" "$out.1"
  fc_start_bg "$FC_KAFKA_PID" "$out" \
    "$JAVA_HOME/bin/java" "${opts[@]}" \
    -Dlog4j2.configurationFile="$FC_ROOT/kafka-local/config/log4j2.properties" \
    -Dkafka.logs.dir="$FC_KAFKA_LOGDIR" -Dkafka.logs.name="$FC_KAFKA_LOGNAME" \
    -cp "$cp" "$FC_KAFKA_MAIN" "$FC_KAFKA_DIR/server.properties"
  return 0
}

# fc_kafka_check BOOTSTRAP REPLICAS: a listening port is not yet a working broker: create a topic with REPLICAS
# replicas and delete it through the AdminClient. Dies with the logs when that fails.
fc_kafka_check() {
  local cp=$1 bootstrap=$2 replicas=$3 log=$4
  if ! env FC_KAFKA_ADMIN_PASSWORD="$FC_KAFKA_ADMIN_PASSWORD" "$JAVA_HOME/bin/java" -cp "$cp" \
    "$FC_ROOT/bin/lib/KafkaCheck.java" "$bootstrap" "$replicas" >"$log" 2>&1; then
    fc_tail "$log"
    fc_tail "$FC_KAFKA_LOGDIR/$FC_KAFKA_LOGNAME.log"
    fc_die "Kafka at $bootstrap listens but could not create a topic (log: $(fc_kafka_rel "$log"))"
  fi
  fc_note "$(tail -n 1 "$log")"
}

fc_ensure_kafka() {
  fc_kafka_parse
  local where="$FC_KAFKA_HOST:$FC_KAFKA_PORT" pid
  if pid=$(fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN"); then
    fc_kafka_wait "$pid" "running (pid $pid, started by bin/up)"
    return 0
  fi
  if fc_kafka_up; then
    fc_info "Kafka at $where: something already listens there (not started by bin/up): using it"
    return 0
  fi
  if ! fc_is_local_host "$FC_KAFKA_HOST"; then
    fc_die "Kafka at $where (COUPON_KAFKA_BOOTSTRAP) does not answer." \
      "bin/up starts a broker only on this machine: start that one, or unset COUPON_KAFKA_BOOTSTRAP."
  fi
  fc_info "Kafka at $where: not running; starting a single-node KRaft broker (kafka-local, data in .run/kafka)"
  local cp
  cp=$(fc_kafka_classpath)
  fc_kafka_launch "$cp" "${FC_KAFKA_JAVA_OPTS:--Xms256m -Xmx512m}"
  pid=$(<"$FC_KAFKA_PID")
  fc_kafka_wait "$pid" "started (pid $pid)"
  fc_kafka_check "$cp" "$COUPON_KAFKA_BOOTSTRAP" 1 "$FC_LOGS/kafka-check.log"
}

# Waits up to 90 s for the current node's port, failing early (with its log) if the process dies.
fc_kafka_wait() {
  local pid=$1 what=$2 rc log out
  log=$FC_KAFKA_LOGDIR/$FC_KAFKA_LOGNAME.log
  out=$FC_KAFKA_LOGDIR/$FC_KAFKA_LOGNAME.out
  local deadline=$((SECONDS + 90))
  while true; do
    rc=0
    fc_kafka_alive_and_listening || rc=$?
    ((rc == 0)) && break
    if ((rc == 2)); then
      fc_tail "$out" 20
      fc_tail "$log"
      fc_die "$FC_KAFKA_NAME (pid $pid) exited (logs: $(fc_kafka_rel "$log"), $(fc_kafka_rel "$out"))"
    fi
    if ((SECONDS >= deadline)); then
      fc_tail "$log"
      fc_die "$FC_KAFKA_NAME (pid $pid) does not listen on $FC_KAFKA_HOST:$FC_KAFKA_PORT after 90 s" \
        "(log: $(fc_kafka_rel "$log"); bin/down stops it)"
    fi
    sleep 1
  done
  fc_info "Kafka at $FC_KAFKA_HOST:$FC_KAFKA_PORT: $what, log $(fc_kafka_rel "$log")"
}

# Stops the current node. A broker's clean shutdown (it flushes and closes its logs) takes a few seconds; give it a
# minute.
fc_stop_kafka_node() {
  fc_stop_pid "$FC_KAFKA_NAME" "$FC_KAFKA_PID" "$FC_KAFKA_MAIN" 60
}

fc_stop_kafka() {
  fc_kafka_parse
  fc_stop_kafka_node
}
