#!/bin/sh
# make bench: teilc's code against naive C, NumPy and OpenBLAS, side by side.
#
#   sh bench/run.sh [KERNEL...]        from the repo root, after make
#   BENCH_QUICK=1 sh bench/run.sh      smoke test: small sizes, 2 runs (< 1 min)
#
# KERNEL: mm tmm bmm mttkrp sddmm interp helm coars cfd4..cfd13, or 'main' (the
# eight) or 'cfd' (the sweep); default all. Installs nothing: the Debian packages
# are listed in bench/README.md; missing ones turn their rows into errors.
# Writes bench/results.md and bench/results.png (full run of every kernel at the
# default sizes) or build/bench/MODE/results.{md,png} (quick, subsets, BENCH_SIZES).
set -eu
cd "$(dirname "$0")/.."

# Debian's OpenBLAS 0.3.21 does not recognise recent CPUs and falls back to slower
# kernels (Prescott on Emerald Rapids; on Zen 5 it guesses Cooperlake). Peers are
# measured at their best: with the AVX-512 kernels (SkylakeX) when the CPU has AVX-512,
# whatever OPENBLAS_CORETYPE the caller's environment holds (BENCH_OPENBLAS_CORETYPE
# chooses another core). Rows tagged @default-core show the library's own choice, and
# results.md lists the core that ran and the inherited OPENBLAS_/OMP_ variables.
BENCH_INHERITED_ENV=$(env | grep -E '^(OPENBLAS|OMP|GOMP|GOTO)_' | sort | tr '\n' ' ')
export BENCH_INHERITED_ENV
if grep -qw avx512f /proc/cpuinfo; then
  export OPENBLAS_CORETYPE="${BENCH_OPENBLAS_CORETYPE:-SkylakeX}"
elif [ -n "${BENCH_OPENBLAS_CORETYPE:-}" ]; then
  export OPENBLAS_CORETYPE="$BENCH_OPENBLAS_CORETYPE"
else
  unset OPENBLAS_CORETYPE
fi

nproc=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
export OMP_NUM_THREADS="${BENCH_THREADS:-$nproc}"
export OPENBLAS_NUM_THREADS="$OMP_NUM_THREADS"

# Debian's python (python3-numpy is a Debian package; the python3 on PATH may be
# another interpreter without numpy). The driver itself needs only the standard library.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=python3

missing=""
[ -f /usr/include/x86_64-linux-gnu/openblas-pthread/cblas.h ] || missing="$missing libopenblas-dev"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || missing="$missing python3-numpy"
command -v gnuplot >/dev/null 2>&1 || missing="$missing gnuplot-nox"
if [ -n "$missing" ]; then
  echo "bench: missing Debian packages:$missing (apt-get install$missing); their rows are reported as errors" >&2
fi
[ -x build/bin/teilc ] || echo "bench: build/bin/teilc is not built (run make); teilc rows will say so" >&2

exec "$PY" bench/bench.py "$@"
