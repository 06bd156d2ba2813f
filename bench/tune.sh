#!/bin/sh
# bench/tune.sh - the autotuner on the CFD interpolation kernel (spec/tune.md,
# issue 5 item 3): runs `teilc --tune` on examples/bench/interp.teil with a
# budget of $TUNE_SECONDS (default 120) in a fresh cache, then builds the
# default and the tuned kernel and times both in the same run, alternately,
# $TUNE_ROUNDS times (default 5) with --repeat $TUNE_REPEAT (default 10); the
# table reports the median of the per-round medians. Writes bench/tune.md.
#
#   sh bench/tune.sh            (after make)
set -eu
cd "$(dirname "$0")/.."
BIN=build/bin
P=examples/bench/interp.teil
SECS=${TUNE_SECONDS:-120}
ROUNDS=${TUNE_ROUNDS:-5}
REP=${TUNE_REPEAT:-10}
CC=${CC:-cc}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export TEIL_CACHE_DIR="$W/cache"

echo "tuning $P for ${SECS} s ..." >&2
t0=$(date +%s)
$BIN/teilc $P --tune --tune-seconds "$SECS" --tune-out "$W/tuned.sched" --main -o "$W/tuned.c" 2>"$W/tune.log" \
  || { cat "$W/tune.log" >&2; exit 1; }
t1=$(date +%s)
t2=$(date +%s%N)
$BIN/teilc $P --tune --main -o "$W/again.c" 2>"$W/again.log"
t3=$(date +%s%N)
cached_ms=$(( (t3 - t2) / 1000000 ))
grep -q "from the cache; no search" "$W/again.log" || { echo "second --tune did not use the cache" >&2; exit 1; }
$BIN/teilc $P --no-tune-cache --main -o "$W/default.c"
$CC -O3 -march=native -fopenmp "$W/default.c" -o "$W/default" -lm
$CC -O3 -march=native -fopenmp "$W/tuned.c" -o "$W/tuned" -lm
# inputs: random, written by the interpreter on the lifted program (seconds;
# the unlifted program would take minutes); the tuner has checked the kernel
$BIN/teilc $P --emit-teil -o "$W/lifted.teil"
$BIN/teil-run "$W/lifted.teil" --seed 1 --out A="$W/in_A.npy" --out u="$W/in_u.npy" >/dev/null 2>&1
ins="--in A=$W/in_A.npy --in u=$W/in_u.npy"
: >"$W/default.t"; : >"$W/tuned.t"
i=0
while [ $i -lt "$ROUNDS" ]; do
  for k in default tuned; do
    "$W/$k" $ins --repeat "$REP" | sed -n 's/^time_ms median=\([0-9.]*\).*/\1/p' >>"$W/$k.t"
  done
  i=$((i + 1))
done
med() { sort -n "$1" | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
dm=$(med "$W/default.t"); tm=$(med "$W/tuned.t")
ratio=$(awk -v d="$dm" -v t="$tm" 'BEGIN {printf "%.3f", d / t}')
summary=$(grep '^tune .*: default' "$W/tune.log" | tail -1)
cpu=$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)
{
  echo "# The autotuner on interp (bench/tune.sh)"
  echo
  echo "\`teilc --tune --tune-seconds $SECS\` on \`$P\` (CFD interpolation, E = 50000, n = 7),"
  echo "then the default and the tuned kernel timed alternately in one run: $ROUNDS rounds of"
  echo "\`--repeat $REP\` each (kernel alone, R-CG-14); the table gives the median of the round"
  echo "medians. Measured on $(date -u +%Y-%m-%d), $cpu, $(nproc) online CPUs, $($CC --version | head -1),"
  echo "OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}. The machine is shared and noisy: compare medians only."
  echo
  echo "| kernel | median ms | per-round medians (ms) |"
  echo "|---|---:|---|"
  echo "| default schedule | $dm | $(tr '\n' ' ' <"$W/default.t") |"
  echo "| tuned schedule | $tm | $(tr '\n' ' ' <"$W/tuned.t") |"
  echo
  echo "Ratio default / tuned: **${ratio}x** (above 1: the tuned kernel is faster)."
  echo
  echo "Search: $((t1 - t0)) s wall. The tuner's own summary:"
  echo
  echo "    $summary"
  echo
  cmp -s "$W/default.c" "$W/tuned.c" && echo "The tuned kernel's C is the default's: the search kept the default schedule, so the ratio is noise." && echo
  echo "A second \`teilc --tune\` used the cache and took $cached_ms ms (no search)."
  echo
  echo "The chosen schedule (the cache entry):"
  echo
  echo '```'
  cat "$W/tuned.sched"
  echo '```'
  echo
  echo "The tuner's progress (one line per measured candidate without a terminal):"
  echo
  echo '```'
  cat "$W/tune.log"
  echo '```'
} >bench/tune.md
echo "default $dm ms, tuned $tm ms, ratio ${ratio}x; wrote bench/tune.md" >&2
