#!/bin/sh
# Runs the Frama-C WP proofs (acsl/run.sh) and states the result as the test
# summary line: proved goals count as passed, unproved ones as failed.
cd "$(dirname "$0")/.." || exit 2
out=$(sh acsl/run.sh 2>&1)
st=$?
echo "$out"
set -- $(echo "$out" | sed -n 's/^acsl total: proved \([0-9]*\)\/\([0-9]*\)$/\1 \2/p')
[ $# -eq 2 ] || { echo "0 passed, 1 failed"; exit 1; }
echo "$1 passed, $(($2 - $1)) failed"
exit $st
