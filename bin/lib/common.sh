# shellcheck shell=bash
# shellcheck disable=SC2034 # FC_* variables set here are read by the scripts that source this file.
# shellcheck disable=SC2016 # bash -c '...' scripts take their values as $0, $1...: single quotes on purpose.
# Helpers shared by bin/up, bin/down and bin/test: messages, paths, ports, background processes, address parsing.
# Sourced, never run. Needs bash (it uses /dev/tcp, arrays and [[ ]]).

FC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FC_RUN="$FC_ROOT/.run"
FC_LOGS="$FC_RUN/logs"

fc_info() { printf '==> %s\n' "$*"; }
fc_note() { printf '    %s\n' "$*"; }
fc_warn() {
  printf 'WARNING: %s\n' "$1" >&2
  shift
  local line
  for line in "$@"; do printf '         %s\n' "$line" >&2; done
}
fc_die() {
  printf 'ERROR: %s\n' "$1" >&2
  shift
  local line
  for line in "$@"; do printf '       %s\n' "$line" >&2; done
  exit 1
}

fc_have() { command -v "$1" >/dev/null 2>&1; }

# The last lines of a log file, indented, on stderr (for failure messages).
fc_tail() {
  local file=$1 lines=${2:-40}
  if [[ -s $file ]]; then
    printf -- '----- last %s lines of %s -----\n' "$lines" "${file#"$FC_ROOT"/}" >&2
    tail -n "$lines" "$file" >&2
    printf -- '-----\n' >&2
  fi
}

# True when something accepts TCP connections on host:port (2 s at most).
fc_port_open() {
  local host=$1 port=$2
  host=${host#[}
  host=${host%]}
  timeout 2 bash -c 'exec 3<>"/dev/tcp/$0/$1"' "$host" "$port" >/dev/null 2>&1
}

# True for names that mean "this machine": only those do bin/up and bin/test start services for.
fc_is_local_host() {
  case $1 in
    127.0.0.1 | localhost | ::1 | '[::1]' | 0.0.0.0 | '') return 0 ;;
    *) return 1 ;;
  esac
}

# fc_wait_until SECONDS COMMAND...: runs COMMAND once a second until it succeeds; false after SECONDS.
fc_wait_until() {
  local deadline=$((SECONDS + $1))
  shift
  until "$@"; do
    ((SECONDS < deadline)) || return 1
    sleep 1
  done
}

# fc_pid_of PIDFILE PATTERN: prints the pid recorded in PIDFILE when that process is alive and its command line
# contains PATTERN (so a pid reused by another program is never taken for ours); otherwise prints nothing, fails.
fc_pid_of() {
  local pidfile=$1 pattern=$2 pid
  [[ -s $pidfile ]] || return 1
  pid=$(<"$pidfile")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  # An empty command line is a process in the middle of its exec (fc_start_bg's shell becoming the program; on a
  # loaded machine the window is long enough to be read: bin/up once declared a starting broker "exited") or a zombie
  # not reaped yet: it is not another program, so it counts as ours; a zombie then never listens, and the caller's
  # time-out tells.
  local cmdline
  if [[ -r /proc/$pid/cmdline ]]; then
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || cmdline=""
    [[ -z $cmdline || $cmdline == *"$pattern"* ]] || return 1
  fi
  printf '%s\n' "$pid"
}

# fc_start_bg PIDFILE LOGFILE COMMAND...: starts COMMAND in its own session (it outlives the terminal and a Ctrl-C of
# the caller), stdout and stderr to LOGFILE, no stdin, and writes its pid to PIDFILE.
fc_start_bg() {
  local pidfile=$1 logfile=$2
  shift 2
  rm -f "$pidfile"
  # The inner shell records its own pid, then becomes COMMAND (exec keeps the pid).
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" >>"$logfile" 2>&1 </dev/null &
  local i
  for ((i = 0; i < 50; i++)); do
    [[ -s $pidfile ]] && return 0
    sleep 0.1
  done
  fc_die "could not start: $*"
}

# fc_stop_pid NAME PIDFILE PATTERN SECONDS: SIGTERM, up to SECONDS for a clean exit, then SIGKILL. Removes PIDFILE.
fc_stop_pid() {
  local name=$1 pidfile=$2 pattern=$3 grace=$4 pid
  if ! pid=$(fc_pid_of "$pidfile" "$pattern"); then
    [[ -e $pidfile ]] && fc_note "$name: not running (stale $(basename "$pidfile") removed)"
    rm -f "$pidfile"
    return 0
  fi
  fc_info "Stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS >= deadline)); then
      fc_warn "$name did not stop within ${grace}s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 1
      break
    fi
    sleep 0.5
  done
  rm -f "$pidfile"
}

# fc_parse_addr URL DEFAULT_PORT: splits scheme://[user[:password]@]host[:port][/path][?query] (the scheme may be
# absent, as in a Kafka bootstrap list; only the first of several comma-separated hosts is taken).
# Sets FC_ADDR_HOST, FC_ADDR_PORT, FC_ADDR_PATH (without the leading slash), FC_ADDR_PASSWORD.
fc_parse_addr() {
  local rest=$1 userinfo=''
  FC_ADDR_PORT=$2
  FC_ADDR_PATH=''
  FC_ADDR_PASSWORD=''
  [[ $rest == *://* ]] && rest=${rest#*://}
  rest=${rest%%\?*}
  if [[ $rest == */* ]]; then
    FC_ADDR_PATH=${rest#*/}
    rest=${rest%%/*}
  fi
  if [[ $rest == *@* ]]; then
    userinfo=${rest%@*}
    rest=${rest##*@}
    [[ $userinfo == *:* ]] && FC_ADDR_PASSWORD=${userinfo#*:}
  fi
  rest=${rest%%,*}
  if [[ $rest == \[*\]* ]]; then # [IPv6]:port
    FC_ADDR_HOST=${rest%%]*}
    FC_ADDR_HOST=${FC_ADDR_HOST#[}
    rest=${rest#*]}
    [[ $rest == :* && -n ${rest#:} ]] && FC_ADDR_PORT=${rest#:}
  elif [[ $rest == *:* ]]; then
    FC_ADDR_HOST=${rest%:*}
    FC_ADDR_PORT=${rest##*:}
  else
    FC_ADDR_HOST=$rest
  fi
  [[ -n $FC_ADDR_HOST ]] || FC_ADDR_HOST=127.0.0.1
  return 0
}

# fc_as_root COMMAND...: runs COMMAND as root: directly when we are root, else through a password-less sudo.
fc_as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  elif fc_have sudo && sudo -n true 2>/dev/null; then
    sudo -n "$@"
  else
    return 126
  fi
}

fc_can_be_root() { [[ $(id -u) -eq 0 ]] || { fc_have sudo && sudo -n true 2>/dev/null; }; }

# fc_http_get URL: prints the HTTP status code on the first line, then the body; fails when nothing answers.
# curl when present, else a plain HTTP/1.0 request over bash's /dev/tcp.
fc_http_get() {
  local url=$1
  if fc_have curl; then
    local out
    out=$(curl -sS --max-time 3 -w '\n%{http_code}' "$url" 2>/dev/null) || return 1
    printf '%s\n%s\n' "${out##*$'\n'}" "${out%$'\n'*}"
    return 0
  fi
  local hostport=${url#http://} path
  path=/${hostport#*/}
  hostport=${hostport%%/*}
  timeout 3 bash -c 'exec 3<>"/dev/tcp/$0/$1" || exit 1
    printf "GET %s HTTP/1.0\r\nHost: %s\r\n\r\n" "$2" "$0" >&3
    IFS=" " read -r _ code _ <&3 || exit 1
    echo "$code"
    sed "1,/^\r\{0,1\}$/d" <&3' "${hostport%:*}" "${hostport##*:}" "$path" 2>/dev/null
}

# fc_health_up URL: true when URL, an actuator health endpoint, says the app is UP: HTTP 200 (Spring Boot answers
# 503 for DOWN and OUT_OF_SERVICE) and "status":"UP" in the body. (Not "the first status of the body": Jackson 3
# sorts properties alphabetically, so "components" may come before the overall "status".)
fc_health_up() {
  local response
  response=$(fc_http_get "$1") || return 1
  [[ ${response%%$'\n'*} == 200 && $response == *'"status":"UP"'* ]]
}

# fc_health_status URL: the body of an actuator health endpoint, or "no answer" (for failure messages).
fc_health_status() {
  local response
  response=$(fc_http_get "$1") || {
    echo 'no answer'
    return 0
  }
  printf 'HTTP %s %s\n' "${response%%$'\n'*}" "${response#*$'\n'}"
}
