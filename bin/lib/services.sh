# shellcheck shell=bash
# Redis and MariaDB/MySQL for local runs (bin/up, bin/down) and the tests (bin/test, which CI runs).
# Needs common.sh and env.sh sourced.
#
# The rule for both: a server that answers at the configured address is used as it is (bin/up never reconfigures a
# server it did not start). One that does not answer is started only when the address is on this machine and the
# server is installed; then bin/up records that it started it, so that bin/down stops it and nothing else.
# When it is not installed, fc_install_missing_services installs it (apt-get, as root or through sudo) or says how.

FC_REDIS_CONF="$FC_ROOT/deploy/redis.conf"
FC_MARIADB_MARKER="$FC_RUN/mariadb.started-by-up"

# ---------------------------------------------------------------------------------------------------------------- install

# First path of a program, also looking in the sbin folders a non-root PATH may lack.
fc_find_program() {
  local name dir
  for name in "$@"; do
    if fc_have "$name"; then
      command -v "$name"
      return 0
    fi
    for dir in /usr/sbin /usr/local/sbin /sbin; do
      [[ -x $dir/$name ]] && {
        printf '%s\n' "$dir/$name"
        return 0
      }
    done
  done
  return 1
}

fc_mariadb_server_program() { fc_find_program mariadbd mysqld; }
fc_mariadb_client_program() { fc_find_program mariadb mysql; }

# fc_apt_install WHY PACKAGE...: installs the packages from the distribution's (apt-get update first), as root or
# through a password-less sudo; dies with what to run by hand when that is not possible.
fc_apt_install() {
  local why=$1
  shift
  fc_have apt-get || fc_die "missing: $* ($why), and there is no apt-get to install them" \
    "Install them with this system's package manager."
  fc_can_be_root || fc_die "missing: $* ($why); installing needs root (or a password-less sudo)" \
    "As root: apt-get update && apt-get install -y $*"
  fc_info "Installing $* (apt-get) for $why"
  fc_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
  fc_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" </dev/null
}

# For bin/up and bin/test: installs redis-server and mariadb-server when one is needed and missing, i.e. when no
# server answers at its configured address, that address is on this machine, and the server is not installed (then
# fc_ensure_redis and fc_ensure_mariadb start it). A server that answers, here or elsewhere, needs nothing installed.
fc_install_missing_services() {
  local missing=()
  fc_redis_parse
  if ! fc_redis_up && fc_is_local_host "$FC_REDIS_HOST" && ! fc_find_program redis-server >/dev/null; then
    missing+=(redis-server)
  fi
  fc_db_parse
  if ! fc_db_up && fc_is_local_host "$FC_DB_HOST" && ! fc_mariadb_server_program >/dev/null; then
    missing+=(mariadb-server)
  fi
  ((${#missing[@]} == 0)) && return 0
  # A package's own attempt to start its service may fail where there is no init system: we start them ourselves.
  fc_apt_install "a local Redis and database" "${missing[@]}"
}

# For bin/test: Debian's chromium and chromium-driver, which the console's browser test (pipeline-tests,
# OperatorViewTest) drives at /usr/bin/chromium and /usr/bin/chromedriver; only when one is missing.
fc_install_missing_browser() {
  if [[ -x /usr/bin/chromium && -x /usr/bin/chromedriver ]]; then
    fc_info "Chromium and its driver are installed"
    return 0
  fi
  fc_apt_install "the console's browser test" chromium chromium-driver
}

# promtool (Debian's prometheus package) for deploy-tests' check of the alert rules (deploy/prometheus/alerts.yml).
fc_install_missing_promtool() {
  if command -v promtool >/dev/null 2>&1; then
    fc_info "promtool is installed"
    return 0
  fi
  fc_apt_install "the alert rules' check" prometheus
}

# ---------------------------------------------------------------------------------------------------------------- Redis

fc_redis_parse() {
  fc_parse_addr "$COUPON_REDIS_URL" 6379
  FC_REDIS_HOST=$FC_ADDR_HOST
  FC_REDIS_PORT=$FC_ADDR_PORT
  FC_REDIS_PASSWORD=$FC_ADDR_PASSWORD
}

fc_redis_cli() {
  if [[ -n $FC_REDIS_PASSWORD ]]; then
    REDISCLI_AUTH=$FC_REDIS_PASSWORD redis-cli -h "$FC_REDIS_HOST" -p "$FC_REDIS_PORT" "$@"
  else
    redis-cli -h "$FC_REDIS_HOST" -p "$FC_REDIS_PORT" "$@"
  fi
}

# True when the Redis of COUPON_REDIS_URL answers (PING, or a TCP connect when there is no redis-cli).
fc_redis_up() {
  if fc_have redis-cli; then
    [[ $(fc_redis_cli ping 2>/dev/null) == PONG ]]
  else
    fc_port_open "$FC_REDIS_HOST" "$FC_REDIS_PORT"
  fi
}

fc_ensure_redis() {
  fc_redis_parse
  local where="$FC_REDIS_HOST:$FC_REDIS_PORT"
  if fc_redis_up; then
    if fc_pid_of "$FC_RUN/redis.pid" redis-server >/dev/null; then
      fc_info "Redis at $where: running (started by bin/up or bin/test, data in .run/redis)"
    else
      fc_info "Redis at $where: running, using it"
    fi
    fc_redis_check_aof
    return 0
  fi
  if ! fc_is_local_host "$FC_REDIS_HOST"; then
    fc_die "Redis at $where (COUPON_REDIS_URL) does not answer." \
      "bin/up starts a Redis only on this machine: start that one, or unset COUPON_REDIS_URL to use a local one."
  fi
  local server
  server=$(fc_find_program redis-server) || fc_die "Redis does not answer at $where and is not installed." \
    "Install it with: apt-get install redis-server   (Debian/Ubuntu, as root)" \
    "or point COUPON_REDIS_URL at a running Redis. Then run this again."
  fc_info "Redis at $where: not running; starting $server (AOF on, appendfsync always, data in .run/redis)"
  mkdir -p "$FC_RUN/redis" "$FC_LOGS"
  local bind=127.0.0.1
  [[ $FC_REDIS_HOST == ::1 ]] && bind=::1
  local args=("$FC_REDIS_CONF" --port "$FC_REDIS_PORT" --bind "$bind" --dir "$FC_RUN/redis"
    --daemonize yes --pidfile "$FC_RUN/redis.pid" --logfile "$FC_LOGS/redis.log")
  # A password in COUPON_REDIS_URL: the Redis we start asks for the same one.
  [[ -n $FC_REDIS_PASSWORD ]] && args+=(--requirepass "$FC_REDIS_PASSWORD")
  "$server" "${args[@]}" || {
    fc_tail "$FC_LOGS/redis.log"
    fc_die "redis-server did not start (log: .run/logs/redis.log)"
  }
  if ! fc_wait_until 30 fc_redis_up; then
    fc_tail "$FC_LOGS/redis.log"
    fc_die "Redis started but does not answer at $where after 30 s (log: .run/logs/redis.log)"
  fi
  fc_note "Redis is up (pid $(<"$FC_RUN/redis.pid"), log .run/logs/redis.log)"
}

# Warns when the Redis in use keeps no append-only file: an accepted request would not survive its crash.
fc_redis_check_aof() {
  fc_have redis-cli || return 0
  local aof fsync
  aof=$(fc_redis_cli config get appendonly 2>/dev/null | sed -n 2p) || true
  fsync=$(fc_redis_cli config get appendfsync 2>/dev/null | sed -n 2p) || true
  if [[ $aof == no ]]; then
    fc_warn "the Redis at $FC_REDIS_HOST:$FC_REDIS_PORT runs without AOF (appendonly no): requests accepted" \
      "before a Redis crash would be lost. Fine for a try-out; bin/up does not change a server it did not start." \
      "To turn it on: redis-cli -p $FC_REDIS_PORT config set appendonly yes; redis-cli -p $FC_REDIS_PORT config set appendfsync always"
  elif [[ $aof == yes && -n $fsync && $fsync != always ]]; then
    fc_note "Redis AOF is on with appendfsync $fsync (the shipped configs use always)"
  fi
}

fc_stop_redis() {
  [[ -e $FC_RUN/redis.pid ]] || return 0
  # SIGTERM is Redis' clean shutdown: it finishes the AOF write and exits.
  fc_stop_pid "Redis (started by bin/up)" "$FC_RUN/redis.pid" redis-server 30
}

# ---------------------------------------------------------------------------------------------------------------- MariaDB

fc_db_parse() {
  fc_parse_addr "$COUPON_DB_URL" 3306
  FC_DB_HOST=$FC_ADDR_HOST
  FC_DB_PORT=$FC_ADDR_PORT
  FC_DB_NAME=$FC_ADDR_PATH
}

fc_db_up() { fc_port_open "$FC_DB_HOST" "$FC_DB_PORT"; }

fc_ensure_mariadb() {
  fc_db_parse
  local where="$FC_DB_HOST:$FC_DB_PORT"
  if fc_db_up; then
    if [[ -e $FC_MARIADB_MARKER ]]; then
      fc_info "MariaDB/MySQL at $where: running (started by bin/up or bin/test)"
    else
      fc_info "MariaDB/MySQL at $where: running, using it"
    fi
    return 0
  fi
  if ! fc_is_local_host "$FC_DB_HOST"; then
    fc_die "MariaDB/MySQL at $where (COUPON_DB_URL) does not answer." \
      "bin/up starts a database server only on this machine: start that one, or unset COUPON_DB_URL."
  fi
  local server
  server=$(fc_mariadb_server_program) || fc_die "MariaDB/MySQL does not answer at $where and is not installed." \
    "Install it with: apt-get install mariadb-server   (Debian/Ubuntu, as root)" \
    "or point COUPON_DB_URL (and COUPON_DB_USER, COUPON_DB_PASSWORD) at a running server. Then run this again."
  local start=(start-stop-daemon --start --oknodo --background --exec "$server")
  fc_can_be_root || fc_die "MariaDB/MySQL is installed but not running, and starting it needs root." \
    "Start it as root: ${start[*]}" \
    "(or: service mariadb start), then run this again."
  fc_info "MariaDB/MySQL at $where: not running; starting $server"
  # The socket folder lives on a tmpfs: after a reboot it is gone and the server cannot create its socket.
  if [[ ! -d /run/mysqld ]] && getent passwd mysql >/dev/null; then
    fc_as_root install -d -o mysql -g mysql -m 755 /run/mysqld
  fi
  fc_as_root "${start[@]}"
  mkdir -p "$FC_RUN"
  printf '%s\n' "$server" >"$FC_MARIADB_MARKER"
  if ! fc_wait_until 60 fc_db_up; then
    fc_die "MariaDB/MySQL was started but does not answer at $where after 60 s." \
      "Its own log tells why: /var/log/mysql/error.log, or run '$server' in a terminal to see the error." \
      "A server configured with another port or skip-networking does not match COUPON_DB_URL."
  fi
  fc_note "MariaDB/MySQL is up"
}

fc_stop_mariadb() {
  [[ -e $FC_MARIADB_MARKER ]] || return 0
  local server
  server=$(<"$FC_MARIADB_MARKER")
  fc_info "Stopping MariaDB/MySQL (started by bin/up)"
  if fc_as_root start-stop-daemon --stop --oknodo --quiet --retry TERM/60/KILL/5 --exec "$server"; then
    rm -f "$FC_MARIADB_MARKER"
  else
    fc_warn "could not stop $server (it needs root): as root, run start-stop-daemon --stop --exec $server"
  fi
}

# Runs SQL (stdin) as the server's root: over the local socket first (Debian's root logs in that way as the OS root
# user), then over TCP with an empty password (a fresh server elsewhere). Fails when neither works; the client's
# messages go to .run/logs/db-setup.log.
fc_db_root_sql() {
  local client sql log="$FC_LOGS/db-setup.log"
  client=$(fc_mariadb_client_program) || {
    echo "no mariadb/mysql client installed" >"$log"
    return 1
  }
  sql=$(cat)
  mkdir -p "$FC_LOGS"
  : >"$log"
  if [[ $(id -u) -eq 0 ]] && "$client" --user=root --connect-timeout=5 --batch <<<"$sql" 2>>"$log"; then
    return 0
  fi
  MYSQL_PWD='' "$client" --protocol=TCP --host="$FC_DB_HOST" --port="$FC_DB_PORT" --user=root \
    --connect-timeout=5 --batch <<<"$sql" 2>>"$log"
}

# True when COUPON_DB_USER can log in to the database of COUPON_DB_URL.
fc_db_user_ok() {
  local client
  client=$(fc_mariadb_client_program) || return 1
  MYSQL_PWD=$COUPON_DB_PASSWORD "$client" --protocol=TCP --host="$FC_DB_HOST" --port="$FC_DB_PORT" \
    --user="$COUPON_DB_USER" --connect-timeout=5 --batch --execute='SELECT 1' "$FC_DB_NAME" >/dev/null 2>&1
}

# Creates the database `coupon` (utf8mb4, utf8mb4_bin) and the user coupon/coupon on localhost and 127.0.0.1 with
# every privilege on *.* (the tests create and drop databases coupon_test_*). Only for the default settings (bin/up
# --cluster: `coupon_cluster`, its own database on the same server).
fc_provision_db() {
  fc_db_parse
  if [[ ($COUPON_DB_URL != "$FC_DEFAULT_DB_URL" && $COUPON_DB_URL != "$FC_CLUSTER_DEFAULT_DB_URL") ||
    $COUPON_DB_USER != "$FC_DEFAULT_DB_USER" ]]; then
    fc_info "Database: COUPON_DB_URL/COUPON_DB_USER are set to your own values: not creating a database or a user"
    fc_note "$COUPON_DB_USER needs to reach $COUPON_DB_URL and to create and drop databases coupon_test_* (tests)."
    return 0
  fi
  local user=$COUPON_DB_USER password=${COUPON_DB_PASSWORD//\'/\'\'} db=$FC_DB_NAME
  if fc_db_root_sql <<SQL; then
CREATE DATABASE IF NOT EXISTS \`$db\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS '$user'@'localhost' IDENTIFIED BY '$password';
CREATE USER IF NOT EXISTS '$user'@'127.0.0.1' IDENTIFIED BY '$password';
GRANT ALL PRIVILEGES ON *.* TO '$user'@'localhost';
GRANT ALL PRIVILEGES ON *.* TO '$user'@'127.0.0.1';
FLUSH PRIVILEGES;
SQL
    fc_info "Database: \`$db\` and user $user ready (all privileges; tests create databases coupon_test_*)"
  elif fc_db_user_ok; then
    fc_info "Database: no root access to the server, but $user already reaches \`$db\`: using it"
    return 0
  else
    fc_die "Database: could not create \`$db\` and user $user as the root of the server at $FC_DB_HOST:$FC_DB_PORT." \
      "Why: $(tr '\n' ' ' <"$FC_LOGS/db-setup.log")" \
      "As the server's root, run:" \
      "  CREATE DATABASE IF NOT EXISTS $db CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;" \
      "  CREATE USER IF NOT EXISTS '$user'@'localhost' IDENTIFIED BY '<password>';  -- and '$user'@'127.0.0.1'" \
      "  GRANT ALL PRIVILEGES ON *.* TO '$user'@'localhost';  -- and '$user'@'127.0.0.1'"
  fi
  if ! fc_db_user_ok; then
    fc_warn "user $user cannot log in to \`$db\` at $FC_DB_HOST:$FC_DB_PORT with COUPON_DB_PASSWORD" \
      "(an existing user with another password is left as it is)."
  fi
}
