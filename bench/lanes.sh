#!/bin/sh
# Lanes across elements, measured by hand (spec/schedule.md, "Lanes across
# elements"): teilc's default code for the CFD operator helm or interp at
# n and E, against bench/lanes.c (W = 8 elements in the lanes of a vector),
# bit-identical outputs checked, median of interleaved rounds. Needs AVX-512F.
# Run from the repository root after `make`:
#   sh bench/lanes.sh helm 13 5000 [ROUNDS]     (E a multiple of 8)
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: sh bench/lanes.sh helm|interp N E [ROUNDS]" >&2; exit 2; }
k=$1 n=$2 e=$3 rounds=${4:-15}
case $k in helm) helm=1 ;; interp) helm=0 ;; *) echo "lanes.sh: kernel must be helm or interp, not '$k'" >&2; exit 2 ;; esac
B=build/bench/lanes
mkdir -p "$B"
python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; kernels.write_teil('$B', overrides=kernels.parse_overrides('$k=${e}x$n'), kernels=[kernels.BY_NAME['$k']])"
build/bin/teilc "$B/$k.teil" -o "$B/$k.c"
gcc -O3 -march=native -fopenmp -DN="$n" -DE="$e" -DHELM=$helm -DKER="$k" bench/lanes.c "$B/$k.c" -o "$B/lanes_$k" -lm
"$B/lanes_$k" "$rounds"
