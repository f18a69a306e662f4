# shellcheck shell=bash
# The two Spring Boot apps of bin/up: build when stale, start in the background, wait for /actuator/health UP.
# Needs common.sh, env.sh and bin/lib/jdk.sh (JAVA_HOME) sourced. An app is named `api` or `worker` (the single
# stack), or `cluster-api-N` / `cluster-worker-N` (the Nth instance of bin/up --cluster, on the Nth port of
# FC_CLUSTER_API_PORTS / FC_CLUSTER_WORKER_PORTS; pid and log in .run/cluster/).
#
# Settings beyond env.sh (rarely needed):
#   FC_API_JAVA_OPTS     JVM options of the api    (default: -Xms1g -Xmx1g -Xmn640m -XX:+UseParallelGC: a large
#                        young generation, since a crowd allocates fast and keeps little; bin/bench measured
#                        12% more admissions per second than with -Xmx512m and the default young generation)
#   FC_WORKER_JAVA_OPTS  JVM options of the worker (default: -Xms128m -Xmx384m -XX:+UseParallelGC)
#   FC_CLUSTER_API_JAVA_OPTS, FC_CLUSTER_WORKER_JAVA_OPTS  the same for the cluster's instances (default:
#                        -Xms256m -Xmx384m -XX:+UseParallelGC: four JVMs, three brokers and six Redis share the
#                        machine)
#   FC_APP_START_TIMEOUT seconds to wait for the apps to report UP (default 180)
#   SPRING_PROFILES_ACTIVE  the apps' Spring profiles (default: local)

# The project's version, read from the root pom (the <version> right after <artifactId>flash-coupon</artifactId>).
fc_project_version() {
  sed -n '/<artifactId>flash-coupon<\/artifactId>/{n;s/.*<version>\(.*\)<\/version>.*/\1/p;q;}' "$FC_ROOT/pom.xml"
}

# fc_nth N WORDS: the Nth (from 1) of the space-separated WORDS.
fc_nth() {
  local words
  read -r -a words <<<"$2"
  printf '%s\n' "${words[$1 - 1]:-}"
}

# fc_app NAME: sets FC_APP_MODULE, FC_APP_JAR, FC_APP_PORT, FC_APP_OPTS, FC_APP_PID, FC_APP_LOG for NAME (api,
# worker, cluster-api-N, cluster-worker-N).
fc_app() {
  local version
  version=$(fc_project_version)
  FC_APP_PID="$FC_RUN/$1.pid"
  FC_APP_LOG="$FC_LOGS/$1.log"
  case $1 in
    api)
      FC_APP_MODULE=api
      FC_APP_PORT=$COUPON_API_PORT
      FC_APP_OPTS=${FC_API_JAVA_OPTS:--Xms1g -Xmx1g -Xmn640m -XX:+UseParallelGC}
      ;;
    worker)
      FC_APP_MODULE=issuer-worker
      FC_APP_PORT=$COUPON_WORKER_PORT
      FC_APP_OPTS=${FC_WORKER_JAVA_OPTS:--Xms128m -Xmx384m -XX:+UseParallelGC}
      ;;
    cluster-api-[1-9])
      FC_APP_MODULE=api
      FC_APP_PORT=$(fc_nth "${1##*-}" "$FC_CLUSTER_API_PORTS")
      FC_APP_OPTS=${FC_CLUSTER_API_JAVA_OPTS:--Xms256m -Xmx384m -XX:+UseParallelGC}
      ;;
    cluster-worker-[1-9])
      FC_APP_MODULE=issuer-worker
      FC_APP_PORT=$(fc_nth "${1##*-}" "$FC_CLUSTER_WORKER_PORTS")
      FC_APP_OPTS=${FC_CLUSTER_WORKER_JAVA_OPTS:--Xms256m -Xmx384m -XX:+UseParallelGC}
      ;;
    *) fc_die "unknown app: $1" ;;
  esac
  if [[ $1 == cluster-* ]]; then
    [[ -n $FC_APP_PORT ]] || fc_die "$1: no port for it in FC_CLUSTER_API_PORTS / FC_CLUSTER_WORKER_PORTS"
    FC_APP_PID="$FC_RUN/cluster/${1#cluster-}.pid"
    FC_APP_LOG="$FC_RUN/cluster/logs/${1#cluster-}.log"
  fi
  FC_APP_JAR="$FC_ROOT/$FC_APP_MODULE/target/$FC_APP_MODULE-$version-exec.jar"
}

# A path as the messages show it: relative to the repository.
fc_app_rel() { printf '%s\n' "${1#"$FC_ROOT"/}"; }

# True when the app's jar is missing or older than a source or pom it is built from (its module, contract, db).
fc_app_stale() {
  fc_app "$1"
  [[ -f $FC_APP_JAR ]] || return 0
  local inputs=("$FC_ROOT/pom.xml") m
  for m in "$FC_APP_MODULE" contract db; do
    [[ -e $FC_ROOT/$m/pom.xml ]] && inputs+=("$FC_ROOT/$m/pom.xml")
    [[ -d $FC_ROOT/$m/src/main ]] && inputs+=("$FC_ROOT/$m/src/main")
  done
  [[ -n $(find "${inputs[@]}" -type f -newer "$FC_APP_JAR" -print -quit 2>/dev/null) ]]
}

fc_app_running() {
  fc_app "$1"
  fc_pid_of "$FC_APP_PID" "$(basename "$FC_APP_JAR")" >/dev/null
}

# Builds both jars once when one is missing or stale, but never under a running app (a jar rewritten under a running
# JVM can break it): then it only warns, and bin/down && bin/up rebuilds and restarts. Every app that runs from these
# jars counts, the single stack's and the cluster's.
fc_build_apps_if_stale() {
  local stale=() running=() app
  for app in api worker; do
    fc_app_stale "$app" && stale+=("$app")
  done
  for app in api worker cluster-api-1 cluster-api-2 cluster-worker-1 cluster-worker-2; do
    fc_app_running "$app" && running+=("$app")
  done
  if ((${#stale[@]} == 0)); then
    fc_info "Apps: jars are up to date"
    return 0
  fi
  if ((${#running[@]} > 0)); then
    fc_warn "the jar of ${stale[*]} is older than the sources, but ${running[*]} runs: not rebuilding now." \
      "bin/down && bin/up rebuilds and restarts with the new code."
    return 0
  fi
  fc_info "Apps: building (${stale[*]} missing or older than the sources; log .run/logs/build.log)"
  fc_note "./mvnw -q -B -DskipTests package -pl api,issuer-worker -am"
  mkdir -p "$FC_LOGS"
  # Formatting is checked by the test build (./mvnw verify), not here: an unformatted edit must not stop a local run.
  if ! (cd "$FC_ROOT" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true package -pl api,issuer-worker -am) \
    >"$FC_LOGS/build.log" 2>&1; then
    fc_tail "$FC_LOGS/build.log" 60
    fc_die "the build failed (log: .run/logs/build.log)"
  fi
}

fc_health_url() { printf 'http://127.0.0.1:%s/actuator/health\n' "$1"; }

# Starts an app unless it already runs. Does not wait: fc_wait_apps does, for both at once.
fc_start_app() {
  local name=$1 pid
  fc_app "$name"
  if pid=$(fc_pid_of "$FC_APP_PID" "$(basename "$FC_APP_JAR")"); then
    fc_info "$name: running (pid $pid, started by bin/up)"
    return 0
  fi
  [[ -f $FC_APP_JAR ]] || fc_die "$name: no jar at ${FC_APP_JAR#"$FC_ROOT"/}"
  if fc_port_open 127.0.0.1 "$FC_APP_PORT"; then
    local kind=${FC_APP_MODULE#issuer-} setting
    setting="COUPON_${kind^^}_PORT=<port> bin/up"
    [[ $name == cluster-* ]] && setting="FC_CLUSTER_${kind^^}_PORTS='<port> <port>' bin/up --cluster"
    fc_die "$name: port $FC_APP_PORT is taken by another program (not started by bin/up)." \
      "Stop it, or choose another port: $setting"
  fi
  local opts
  read -r -a opts <<<"$FC_APP_OPTS"
  mkdir -p "$(dirname "$FC_APP_LOG")" "$(dirname "$FC_APP_PID")"
  [[ -f $FC_APP_LOG ]] && mv -f "$FC_APP_LOG" "$FC_APP_LOG.1"
  fc_info "$name: starting ${FC_APP_JAR#"$FC_ROOT"/} on port $FC_APP_PORT (log $(fc_app_rel "$FC_APP_LOG"))"
  # The apps read their settings from the COUPON_* variables exported by env.sh; the port and the address they listen
  # on (COUPON_BIND_ADDRESS, 127.0.0.1 unless told otherwise) are also given to Spring directly, so they hold whatever
  # the app's own defaults and profiles say. The worker joins its consumer group as a static member
  # named after this machine and its port (unique while it runs, the same after a restart): a restarted worker gets its
  # partitions back at once instead of after the session timeout.
  local instance=() access=()
  [[ $FC_APP_MODULE == issuer-worker ]] &&
    instance=(COUPON_WORKER_INSTANCE_ID="${COUPON_WORKER_INSTANCE_ID:-worker-${HOSTNAME:-local}-$FC_APP_PORT}")
  # The cluster's apps are each their own user of Redis and Kafka (cluster.sh).
  [[ $name == cluster-* ]] && mapfile -t access < <(fc_cluster_app_access "$FC_APP_MODULE")
  (cd "$FC_ROOT" && fc_start_bg "$FC_APP_PID" "$FC_APP_LOG" \
    env SPRING_PROFILES_ACTIVE="${SPRING_PROFILES_ACTIVE:-local}" "${instance[@]}" "${access[@]}" \
    "$JAVA_HOME/bin/java" "${opts[@]}" -Dserver.port="$FC_APP_PORT" \
    -Dserver.address="${COUPON_BIND_ADDRESS:-127.0.0.1}" -jar "$FC_APP_JAR")
}

# Waits until each named app reports UP on /actuator/health; fails early with its log when one exits.
fc_wait_apps() {
  local timeout=${FC_APP_START_TIMEOUT:-180} deadline name pending=("$@") still
  deadline=$((SECONDS + timeout))
  while ((${#pending[@]} > 0)); do
    still=()
    for name in "${pending[@]}"; do
      fc_app "$name"
      if fc_health_up "$(fc_health_url "$FC_APP_PORT")"; then
        fc_note "$name is UP"
      elif ! fc_pid_of "$FC_APP_PID" "$(basename "$FC_APP_JAR")" >/dev/null; then
        fc_tail "$FC_APP_LOG" 60
        fc_die "$name exited before it was healthy (log: $(fc_app_rel "$FC_APP_LOG"))"
      else
        still+=("$name")
      fi
    done
    pending=("${still[@]}")
    ((${#pending[@]} == 0)) && break
    if ((SECONDS >= deadline)); then
      for name in "${pending[@]}"; do
        fc_app "$name"
        fc_tail "$FC_APP_LOG" 60
        printf 'health of %s: %s\n' "$name" "$(fc_health_status "$(fc_health_url "$FC_APP_PORT")")" >&2
      done
      fc_die "not healthy after ${timeout}s: ${pending[*]} (still running; bin/down stops everything)"
    fi
    sleep 2
  done
}

fc_stop_app() {
  fc_app "$1"
  # Spring Boot shuts down gracefully on SIGTERM (in-flight requests, Kafka consumers, pools).
  fc_stop_pid "$1" "$FC_APP_PID" "$(basename "$FC_APP_JAR")" 45
}

# The loadgen jar: bin/demo's flash-crowd client, whose `mint-token` command mints bin/up's tokens.
fc_loadgen_jar() { printf '%s/loadgen/target/loadgen-%s.jar\n' "$FC_ROOT" "$(fc_project_version)"; }

# Builds the loadgen jar when it is missing, or (unless $1 is 0, as with --no-build) older than its sources.
fc_ensure_loadgen() {
  local build=${1:-1} jar
  jar=$(fc_loadgen_jar)
  if [[ -f $jar && -d $FC_ROOT/loadgen/target/lib ]]; then
    ((build)) || return 0
    [[ -z $(find "$FC_ROOT/pom.xml" "$FC_ROOT/loadgen/pom.xml" "$FC_ROOT/loadgen/src/main" -type f -newer "$jar" \
      -print -quit 2>/dev/null) ]] && return 0
  fi
  fc_info "loadgen: building (it mints the tokens; log .run/logs/loadgen-build.log)"
  mkdir -p "$FC_LOGS"
  if ! (cd "$FC_ROOT" && ./mvnw -q -B -DskipTests -Dspotless.check.skip=true package -pl loadgen -am) \
    >"$FC_LOGS/loadgen-build.log" 2>&1; then
    fc_tail "$FC_LOGS/loadgen-build.log" 60
    fc_die "building loadgen failed (log: .run/logs/loadgen-build.log)"
  fi
}

# Prints a token for SUBJECT with ROLES (loadgen's mint-token: HS256 with COUPON_JWT_SECRET, 12 hours).
fc_mint_token() {
  "$JAVA_HOME/bin/java" -jar "$(fc_loadgen_jar)" mint-token "$@"
}
