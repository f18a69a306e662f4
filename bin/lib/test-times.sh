#!/usr/bin/env bash
# Prints how long the tests of the run that started after a marker file took: each module's total, then the ten
# slowest test classes, from the reports surefire and failsafe wrote (target/*-reports/TEST-*.xml). bin/test calls it
# at its end, passed or failed, so that the next class to grow is seen.
#
# Usage: bin/lib/test-times.sh MARKER   (reports older than MARKER are from an earlier run and left out)
set -uo pipefail

marker=${1:?usage: test-times.sh MARKER}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root" || exit 0

# one line per test class: seconds, module, class. The <testsuite> element carries name= and time= attributes.
rows=$(find . -path ./node_modules -prune -o -path '*/target/*-reports/TEST-*.xml' -newer "$marker" -print 2>/dev/null |
  while read -r report; do
    module=${report#./}
    module=${module%%/target/*}
    suite=$(grep -m1 -o '<testsuite [^>]*>' "$report")
    name=$(sed -n 's/.* name="\([^"]*\)".*/\1/p' <<<"$suite")
    seconds=$(sed -n 's/.* time="\([^"]*\)".*/\1/p' <<<"$suite" | tr -d ,)
    [ -n "$name" ] && [ -n "$seconds" ] && printf '%.1f %s %s\n' "$seconds" "$module" "$name"
  done)

[ -n "$rows" ] || exit 0

echo
echo "Test time by module (seconds, sum of its test classes):"
echo "$rows" | awk '{ total[$2] += $1 } END { for (m in total) printf "%8.1f  %s\n", total[m], m }' | sort -rn
echo
echo "The ten slowest test classes (seconds):"
echo "$rows" | sort -rn | head -10 | awk '{ printf "%8.1f  %s  (%s)\n", $1, $3, $2 }'
