#!/bin/sh
# Runs every test suite of `make test` and prints a total. Each suite prints
# its own summary; this script adds them up, with the wall time of each suite,
# and exits non-zero on any failure.
set -u
cd "$(dirname "$0")/.."
B=build
export TEIL_CACHE_DIR=$(mktemp -d)   # no test depends on a user's tuning cache (spec/tune.md)
trap 'rm -rf "$TEIL_CACHE_DIR"' EXIT
pass=0 fail=0 start=$(date +%s)
summary() { # suite-name output-file status seconds
  p=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -1 | awk '{print $1}')
  f=$(grep -Eo '^[0-9]+ passed, [0-9]+ failed' "$2" | tail -1 | awk '{print $3}')
  if [ -z "$p" ]; then
    # cmocka: "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s), listed below:"
    p=$(grep -Eo '\[  PASSED  \] [0-9]+' "$2" | awk '{s+=$4} END {print s+0}')
    f=$(grep -Eo '\[  FAILED  \] [0-9]+' "$2" | awk '{s+=$4} END {print s+0}')
  fi
  [ "$3" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  pass=$((pass + p)); fail=$((fail + f))
  printf '%-34s %5s passed, %s failed  (%s s)\n' "$1" "$p" "$f" "$4"
}
run() { # name command...
  name=$1; shift
  out=$(mktemp)
  t0=$(date +%s)
  "$@" >"$out" 2>&1
  st=$?
  t1=$(date +%s)
  [ $st -ne 0 ] && { echo "---- $name failed; its output:"; tail -40 "$out"; }
  summary "$name" "$out" $st $((t1 - t0))
  rm -f "$out"
}

for t in $B/test/test_* $B/san/test/test_*; do
  [ -x "$t" ] && run "unit ${t#$B/}" "$t"
done
[ -x tests/check/run.sh ] || chmod +x tests/check/run.sh 2>/dev/null
run "golden teil-check (ASan+UBSan)" bash tests/check/run.sh $B/san/bin/teil-check
run "golden teil-run (ASan+UBSan)" bash tests/run/run.sh $B/san/bin/teil-run $B/bin/npycmp
for m in 2 3 5 8 16; do
  run "golden teil-run --pad $m" bash tests/run/run.sh $B/bin/teil-run $B/bin/npycmp --pad $m
done
[ -f tests/cli/run.sh ] && run "command-line behaviour" sh tests/cli/run.sh $B/san/bin
run "fuzzers, short (ASan+UBSan)" sh tests/fuzz/run.sh $B
run "teilc: compile, run, --diff" sh tests/compile/run.sh
run "schedules: legality, --diff, random" env SCHED_RANDOM=300 sh tests/sched/run.sh
run "autotuner" sh tests/tune/run.sh
run "proofs: no unproved step" sh tests/proofs-honest.sh
run "acsl: --acsl keeps the values; shape of the annotations" env ACSL_PROGS=0 sh tests/acsl/run.sh
run "acsl: Frama-C WP goals" sh tests/acsl.sh
[ -f tests/spec/run.sh ] && [ -x $B/bin/teil-spec ] && run "teil-spec second oracle" bash tests/spec/run.sh $B/bin
echo "total: $pass passed, $fail failed ($(($(date +%s) - start)) s)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
