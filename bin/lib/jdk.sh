# shellcheck shell=sh
# Sourced by ./mvnw and the bin/ scripts: makes JAVA_HOME point at a JDK 21 or newer.
# Keeps JAVA_HOME when it already is one; otherwise takes the newest JDK 21+ found in the usual places.

_fc_java_major() {
  # prints the feature version of "$1/bin/java", or nothing
  [ -x "$1/bin/java" ] || return 0
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

_fc_find_jdk() {
  if [ -n "${JAVA_HOME:-}" ]; then
    v=$(_fc_java_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge 21 ]; then echo "$JAVA_HOME"; return 0; fi
  fi
  if command -v java >/dev/null 2>&1; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
    v=$(_fc_java_major "$home")
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ -x "$home/bin/javac" ]; then echo "$home"; return 0; fi
  fi
  best="" best_v=0
  for home in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/* /Library/Java/JavaVirtualMachines/*/Contents/Home; do
    [ -x "$home/bin/javac" ] || continue
    v=$(_fc_java_major "$home")
    if [ -n "$v" ] && [ "$v" -ge 21 ] && [ "$v" -gt "$best_v" ]; then best="$home" best_v="$v"; fi
  done
  [ -n "$best" ] && echo "$best"
}

FC_JAVA_HOME=$(_fc_find_jdk)
if [ -z "$FC_JAVA_HOME" ]; then
  echo "flash-coupon needs a JDK 21 or newer; none was found (JAVA_HOME, java on PATH, /usr/lib/jvm)." >&2
  echo "Install one, e.g. 'apt-get install openjdk-21-jdk-headless' or Temurin 21/25, or set JAVA_HOME." >&2
  return 1 2>/dev/null || exit 1
fi
JAVA_HOME="$FC_JAVA_HOME"
export JAVA_HOME
