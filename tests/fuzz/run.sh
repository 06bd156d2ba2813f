#!/bin/sh
# The fuzzers as a short, deterministic test under ASan+UBSan (gcc, no
# libFuzzer): each built with its plain main (make test-build puts them in
# build/san/fuzz/), each check one run that must end with status 0, i.e.
# without a crash, a sanitizer report or a violated contract (the contracts
# are at the top of each tests/fuzz/fuzz_*.c):
#   1. fuzz_parse: its built-in seeds, every examples/*.teil and *.tm and the
#      inputs of tests/fuzz/parse_corpus/, then $FUZZ_PARSE_RUNS (default 5000)
#      mutations of them, with PRNG seeds 1 and 2;
#   2. fuzz_npy: its built-in images and those of tests/fuzz/npy_corpus/, then
#      $FUZZ_NPY_RUNS (default 500000) mutations, with PRNG seeds 1 and 2;
#   3. fuzz_sched: the seeds of tests/fuzz/sched_seeds.sh, then the inputs of
#      tests/fuzz/sched_corpus/, one run each.
# The three corpora are what coverage-guided libFuzzer campaigns kept, reduced to
# a set that reaches the same edges (-set_cover_merge=1 -use_counters=0).
# Longer campaigns: the libFuzzer commands at the top of each fuzz_*.c.
#   sh tests/fuzz/run.sh [BUILD_DIR]       (default: build)
# The last line is exactly "N passed, M failed".
set -u
cd "$(dirname "$0")/../.." || exit 2
B=${1:-build}
F=$B/san/fuzz
pass=0 fail=0
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
check() { # name command...
  name=$1; shift
  "$@" >"$tmp/log" 2>&1
  st=$?
  if [ $st -eq 0 ]; then
    pass=$((pass + 1)); echo "ok   $name: $(tail -n 1 "$tmp/log")"
  else
    fail=$((fail + 1)); echo "FAIL $name (status $st):"; tail -n 20 "$tmp/log" | sed 's/^/    /'
  fi
}
for f in fuzz_parse fuzz_npy fuzz_sched; do
  [ -x "$F/$f" ] || { echo "tests/fuzz/run.sh: $F/$f is missing (make test-build)" >&2; echo "0 passed, 1 failed"; exit 1; }
done

examples=$(ls examples/*.teil examples/*.tm examples/teml/*.teil tests/fuzz/parse_corpus/* 2>/dev/null)
for seed in 1 2; do
  # shellcheck disable=SC2086
  check "fuzz_parse seed $seed" "$F/fuzz_parse" "${FUZZ_PARSE_RUNS:-5000}" $seed $examples
  check "fuzz_npy seed $seed" "$F/fuzz_npy" "${FUZZ_NPY_RUNS:-500000}" $seed tests/fuzz/npy_corpus/*
done
sh tests/fuzz/sched_seeds.sh "$tmp/seeds" >/dev/null 2>&1 || { fail=$((fail + 1)); echo "FAIL sched_seeds.sh"; }
check "fuzz_sched on its seeds" "$F/fuzz_sched" "$tmp"/seeds/*
check "fuzz_sched on tests/fuzz/sched_corpus" "$F/fuzz_sched" tests/fuzz/sched_corpus/*
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
