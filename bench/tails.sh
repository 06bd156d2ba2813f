#!/bin/sh
# Transposed tails, measured by hand (spec/schedule.md, "Transposed tails"):
# teilc's code for the CFD operator interp at n (8 < n < 16) and E elements,
# against bench/tails.c (the rows' last n - 8 columns as vectors over the
# rows), bit-identical outputs checked, median of interleaved rounds. teilc
# runs with its default schedule, or with the flags in TEILC_FLAGS (e.g.
# --no-lanes). Needs AVX-512F. Run from the repository root after `make`:
#   sh bench/tails.sh N [E [ROUNDS [RUNS]]]   (default E: cfd<N>'s in make bench)
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: sh bench/tails.sh N [E [ROUNDS [RUNS]]]   (8 < N < 16)" >&2; exit 2; }
n=$1
case "$n" in 9|10|11|12|13|14|15) ;; *) echo "tails.sh: N must be 9 to 15, not '$n'" >&2; exit 2 ;; esac
e=${2:-$(python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; print(kernels.cfd_E($n, False))")}
rounds=${3:-9} runs=${4:-20}
case "$e$rounds$runs" in *[!0-9]*) echo "usage: sh bench/tails.sh N [E [ROUNDS [RUNS]]] (positive integers)" >&2; exit 2 ;; esac
gcc -march=native -dM -E - </dev/null | grep -q __AVX512F__ || { echo "tails.sh: this CPU has no AVX-512F, which bench/tails.c needs" >&2; exit 2; }
B=build/bench/tails
mkdir -p "$B"
python3 -c "import sys; sys.path.insert(0, 'bench'); import kernels; kernels.write_teil('$B', overrides=kernels.parse_overrides('interp=${e}x$n'), kernels=[kernels.BY_NAME['interp']])"
build/bin/teilc "$B/interp.teil" ${TEILC_FLAGS:-} -o "$B/interp.c"
gcc -O3 -march=native -fopenmp -DN="$n" -DE="$e" -DKER=interp bench/tails.c "$B/interp.c" -o "$B/tails$n" -lm
"$B/tails$n" "$rounds" "$runs"
