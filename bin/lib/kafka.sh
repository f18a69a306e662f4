# shellcheck shell=bash
# The local single-node KRaft Kafka broker of bin/up: the jars of the kafka-local module (Maven Central), run as its
# own process with main class kafka.Kafka. Data in .run/kafka, log in .run/logs/kafka.log, pid in .run/kafka.pid.
# Needs common.sh, env.sh and bin/lib/jdk.sh (JAVA_HOME) sourced. Not used by CI: the tests embed their own broker.
#
# Settings beyond env.sh (rarely needed):
#   FC_KAFKA_CONTROLLER_PORT  the KRaft controller's port (default: the broker's port + 1, so 9093)
#   FC_KAFKA_JAVA_OPTS        JVM options of the broker (default: -Xms256m -Xmx512m)

FC_KAFKA_DIR="$FC_RUN/kafka"
FC_KAFKA_PID="$FC_RUN/kafka.pid"
FC_KAFKA_MAIN=kafka.Kafka

fc_kafka_parse() {
  fc_parse_addr "$COUPON_KAFKA_BOOTSTRAP" 9092
  FC_KAFKA_HOST=$FC_ADDR_HOST
  FC_KAFKA_PORT=$FC_ADDR_PORT
  FC_KAFKA_CONTROLLER_PORT=${FC_KAFKA_CONTROLLER_PORT:-$((FC_KAFKA_PORT + 1))}
}

fc_kafka_up() { fc_port_open "$FC_KAFKA_HOST" "$FC_KAFKA_PORT"; }

# Prints the broker's classpath, from .run/kafka/classpath.txt; asks Maven for it again when that file is missing,
# older than the poms, or names a jar that is gone.
fc_kafka_classpath() {
  local file="$FC_KAFKA_DIR/classpath.txt" stale=0 jar
  mkdir -p "$FC_KAFKA_DIR" "$FC_LOGS"
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

# server.properties of one combined broker+controller node, written on every start from the current settings.
fc_kafka_write_config() {
  local host=$FC_KAFKA_HOST
  [[ $host == localhost || $host == 0.0.0.0 || -z $host ]] && host=127.0.0.1
  [[ $host == *:* ]] && host="[$host]" # IPv6 literal
  cat >"$FC_KAFKA_DIR/server.properties" <<EOF
# Written by bin/up (bin/lib/kafka.sh) on every start: edit that script, not this file.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$host:$FC_KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://$host:$FC_KAFKA_PORT,CONTROLLER://$host:$FC_KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$host:$FC_KAFKA_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$FC_KAFKA_DIR/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
default.replication.factor=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
# A developer's machine: keep a week or 1 GiB per partition, whichever comes first.
log.retention.hours=168
log.retention.bytes=1073741824
EOF
}

fc_kafka_java() {
  local cp=$1
  shift
  "$JAVA_HOME/bin/java" -cp "$cp" "$@"
}

# Formats the storage once (KRaft needs a cluster id in meta.properties before the first start).
fc_kafka_format() {
  local cp=$1 uuid
  [[ -f $FC_KAFKA_DIR/data/meta.properties ]] && return 0
  fc_note "formatting the broker's storage (.run/kafka/data)"
  uuid=$(fc_kafka_java "$cp" kafka.tools.StorageTool random-uuid 2>>"$FC_LOGS/kafka-format.log") ||
    fc_die "kafka.tools.StorageTool random-uuid failed (log: .run/logs/kafka-format.log)"
  if ! fc_kafka_java "$cp" kafka.tools.StorageTool format -t "$uuid" -c "$FC_KAFKA_DIR/server.properties" \
    >>"$FC_LOGS/kafka-format.log" 2>&1; then
    fc_tail "$FC_LOGS/kafka-format.log"
    fc_die "formatting the broker's storage failed (log: .run/logs/kafka-format.log)"
  fi
}

fc_kafka_alive_and_listening() {
  fc_pid_of "$FC_KAFKA_PID" "$FC_KAFKA_MAIN" >/dev/null || return 2
  fc_kafka_up
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
  if fc_port_open "$FC_KAFKA_HOST" "$FC_KAFKA_CONTROLLER_PORT"; then
    fc_die "port $FC_KAFKA_CONTROLLER_PORT (the local broker's controller port) is taken by another program." \
      "Free it, or choose another: FC_KAFKA_CONTROLLER_PORT=<port> bin/up"
  fi
  fc_info "Kafka at $where: not running; starting a single-node KRaft broker (kafka-local, data in .run/kafka)"
  local cp
  cp=$(fc_kafka_classpath)
  fc_kafka_write_config
  fc_kafka_format "$cp"
  local opts
  read -r -a opts <<<"${FC_KAFKA_JAVA_OPTS:--Xms256m -Xmx512m}"
  [[ -f $FC_LOGS/kafka.out ]] && mv -f "$FC_LOGS/kafka.out" "$FC_LOGS/kafka.out.1"
  fc_start_bg "$FC_KAFKA_PID" "$FC_LOGS/kafka.out" \
    "$JAVA_HOME/bin/java" "${opts[@]}" \
    -Dlog4j2.configurationFile="$FC_ROOT/kafka-local/config/log4j2.properties" \
    -Dkafka.logs.dir="$FC_LOGS" \
    -cp "$cp" "$FC_KAFKA_MAIN" "$FC_KAFKA_DIR/server.properties"
  pid=$(<"$FC_KAFKA_PID")
  fc_kafka_wait "$pid" "started (pid $pid)"
  # A listening port is not yet a working broker: create and delete a topic through the AdminClient.
  if ! fc_kafka_java "$cp" "$FC_ROOT/bin/lib/KafkaCheck.java" "$COUPON_KAFKA_BOOTSTRAP" >"$FC_LOGS/kafka-check.log" 2>&1; then
    fc_tail "$FC_LOGS/kafka-check.log"
    fc_tail "$FC_LOGS/kafka.log"
    fc_die "the broker listens but could not create a topic (logs: .run/logs/kafka-check.log, kafka.log)"
  fi
  fc_note "$(tail -n 1 "$FC_LOGS/kafka-check.log")"
}

# Waits up to 90 s for the broker's port, failing early (with its log) if the process dies.
fc_kafka_wait() {
  local pid=$1 what=$2 rc
  local deadline=$((SECONDS + 90))
  while true; do
    rc=0
    fc_kafka_alive_and_listening || rc=$?
    ((rc == 0)) && break
    if ((rc == 2)); then
      fc_tail "$FC_LOGS/kafka.out" 20
      fc_tail "$FC_LOGS/kafka.log"
      fc_die "the Kafka broker (pid $pid) exited (logs: .run/logs/kafka.log, kafka.out)"
    fi
    if ((SECONDS >= deadline)); then
      fc_tail "$FC_LOGS/kafka.log"
      fc_die "the Kafka broker (pid $pid) does not listen on $FC_KAFKA_HOST:$FC_KAFKA_PORT after 90 s" \
        "(log: .run/logs/kafka.log; bin/down stops it)"
    fi
    sleep 1
  done
  fc_info "Kafka at $FC_KAFKA_HOST:$FC_KAFKA_PORT: $what, log .run/logs/kafka.log"
}

fc_stop_kafka() {
  # A broker's clean shutdown (it flushes and closes its logs) takes a few seconds; give it a minute.
  fc_stop_pid "Kafka broker" "$FC_KAFKA_PID" "$FC_KAFKA_MAIN" 60
}
