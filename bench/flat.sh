#!/bin/sh
# A flat last contraction, measured by hand (spec/schedule.md, "A flat last
# contraction"): teilc's code for the CFD operator interp at n = 12 or 13 and
# E elements, against the same code with its last contraction over the
# flattened slice (bench/flat.py, bench/flat.c), bit-identical outputs
# checked, median of interleaved rounds. Needs AVX-512F. Run from the
# repository root after `make`:
#   sh bench/flat.sh N [E [ROUNDS [RUNS]]]   (N = 12 or 13; default E: cfd<N>'s in make bench)
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: sh bench/flat.sh N [E [ROUNDS [RUNS]]]   (N = 12 or 13)" >&2; exit 2; }
n=$1
case "$n" in 12|13) ;; *) echo "flat.sh: N must be 12 or 13, not '$n'" >&2; exit 2 ;; esac
e=${2:-$(python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; print(kernels.cfd_E($n, False))")}
rounds=${3:-9} runs=${4:-20}
case "$e$rounds$runs" in *[!0-9]*) echo "usage: sh bench/flat.sh N [E [ROUNDS [RUNS]]] (positive integers)" >&2; exit 2 ;; esac
gcc -march=native -dM -E - </dev/null | grep -q __AVX512F__ || { echo "flat.sh: this CPU has no AVX-512F, which the flat block needs" >&2; exit 2; }
B=build/bench/flat
mkdir -p "$B"
python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; kernels.write_teil('$B', overrides=kernels.parse_overrides('interp=${e}x$n'), kernels=[kernels.BY_NAME['interp']])"
build/bin/teilc "$B/interp.teil" -o "$B/interp.c"
python3 bench/flat.py "$n" "$B/interp.c" "$B/interp_flat.c"
gcc -O3 -march=native -fopenmp -DN="$n" -DE="$e" -DKER=interp bench/flat.c "$B/interp.c" "$B/interp_flat.c" -o "$B/flat$n" -lm
"$B/flat$n" "$rounds" "$runs"
