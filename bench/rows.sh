#!/bin/sh
# Paired rows at n = 12, measured by hand (spec/schedule.md, "Paired rows at
# n = 12"): teilc's default code for the CFD operator interp at n = 12 and E
# elements, against bench/rows.c (two rows of 12 as three whole vectors),
# bit-identical outputs checked, median of interleaved rounds. Needs AVX-512F.
# Run from the repository root after `make`:
#   sh bench/rows.sh [E [ROUNDS [RUNS]]]     (default E = 4855, as cfd12 in make bench)
set -eu
cd "$(dirname "$0")/.."
e=${1:-4855} rounds=${2:-9} runs=${3:-20}
gcc -march=native -dM -E - </dev/null | grep -q __AVX512F__ || { echo "rows.sh: this CPU has no AVX-512F, which bench/rows.c needs" >&2; exit 2; }
case "$e$rounds$runs" in *[!0-9]*) echo "usage: sh bench/rows.sh [E [ROUNDS [RUNS]]] (positive integers)" >&2; exit 2 ;; esac
B=build/bench/rows
mkdir -p "$B"
python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; kernels.write_teil('$B', overrides=kernels.parse_overrides('interp=${e}x12'), kernels=[kernels.BY_NAME['interp']])"
build/bin/teilc "$B/interp.teil" -o "$B/interp.c"
gcc -O3 -march=native -fopenmp -DE="$e" -DKER=interp bench/rows.c "$B/interp.c" -o "$B/rows" -lm
"$B/rows" "$rounds" "$runs"
