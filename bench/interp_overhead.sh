#!/bin/sh
# Interpreter overhead against naive compiled C on the CFD operator
# (examples/cfd_interp.teil, n = 7, E = 1000, unlifted: 117.6 M multiply-adds).
# Reports the median of RUNS runs of each (default 5) and their ratio.
# The interpreter's time includes parsing, checking and filling random inputs,
# which take a few milliseconds of the total.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
make -s build/bin/teil-run
mkdir -p build/bench
gcc -O3 -march=native -o build/bench/cfd_naive bench/naive/cfd_interp.c
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
c=$(for i in $(seq "$RUNS"); do build/bench/cfd_naive | awk '{print $1}'; done | median)
t=$(for i in $(seq "$RUNS"); do
      s=$(date +%s%N); build/bin/teil-run examples/cfd_interp.teil --seed 1 >/dev/null; e=$(date +%s%N)
      echo "$(( (e - s) / 1000 ))" | awk '{print $1/1000}'
    done | median)
echo "naive C (gcc -O3 -march=native), loop nest only: median $c ms over $RUNS runs"
echo "teil-run, whole process:                       median $t ms over $RUNS runs"
awk -v t="$t" -v c="$c" 'BEGIN {printf "interpreter overhead: %.1fx naive C\n", t / c}'
