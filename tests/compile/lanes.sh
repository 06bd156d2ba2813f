#!/bin/sh
# tests/compile/lanes.sh BIN_DIR WORK_DIR: R-SCH-27 (lanes across elements).
# For CFD operators of several sizes, teilc's code with the lanes (--lanes, or
# the default where they pay) and without (--no-lanes) must give bit-identical
# outputs on the same random inputs (R-SCH-13: no sum is reordered), built
# warning-free with -O3 -Wall -Wextra -Werror, and the
# lanes must really be there, and with --stream so must the streamed copy-out
# (R-CG-26.1). Prints one line per case; exit status 1 if any fails.
set -u
BIN=$1 W=$2
CC=${CC:-cc}
mkdir -p "$W"
fail=0
# -march=native where the compiler takes it: on an AVX-512 host the copies then run
# teil_lanes_in/out's 8 x 8 transposes, which must give the same outputs too
ARCH=-march=native
echo 'int main(void) { return 0; }' >"$W/arch.c"
$CC $ARCH "$W/arch.c" -o "$W/arch" 2>/dev/null || ARCH=

# case NAME SRC E N [teilc options]: SRC (helm or cfd9 of examples/bench) at E elements of n^3
case_() {
  name=$1 src=$2 e=$3 n=$4
  shift 4
  d=$W/$name
  mkdir -p "$d"
  case $src in
    helm) sed "s/5000/$e/g; s/\b13\b/$n/g" examples/bench/helm.teil >"$d/k.teil" ;;
    cfd9) sed "s/11507/$e/g; s/\b9\b/$n/g" examples/bench/cfd9.teil >"$d/k.teil" ;;
  esac
  grep '^alloc' "$d/k.teil" >"$d/decl.teil"
  ins=$(sed -n 's/^alloc input \([A-Za-z_][A-Za-z0-9_]*\) *:.*/\1/p' "$d/k.teil")
  gen="" inargs=""
  for x in $ins; do
    gen="$gen --out $x=$d/$x.npy"
    inargs="$inargs --in $x=$d/$x.npy"
  done
  if ! "$BIN/teil-run" "$d/decl.teil" --seed 7 $gen >/dev/null 2>"$d/gen.err"; then
    echo "FAIL $name: inputs: $(head -1 "$d/gen.err")"
    fail=1
    return
  fi
  for mode in lanes nolanes; do
    flag=""
    [ $mode = nolanes ] && flag=--no-lanes
    if ! "$BIN/teilc" "$d/k.teil" "$@" $flag --main -o "$d/$mode.c" 2>"$d/$mode.err" ||
       ! $CC -std=c11 -O3 $ARCH -fopenmp -Wall -Wextra -Werror "$d/$mode.c" -o "$d/$mode" -lm 2>>"$d/$mode.err" ||
       ! "$d/$mode" $inargs --out "v=$d/$mode.v.npy" >/dev/null 2>>"$d/$mode.err"; then
      echo "FAIL $name ($mode): $(head -1 "$d/$mode.err")"
      fail=1
      return
    fi
  done
  if ! grep -q 'R-SCH-27: groups' "$d/lanes.c"; then
    echo "FAIL $name: no lanes in the code"
    fail=1
  elif case " $* " in *" --stream "*) ! grep -q 'teil_lanes_out_nt(v + ' "$d/lanes.c" ;; *) false ;; esac; then
    echo "FAIL $name: v is not streamed with --stream"
    fail=1
  elif grep -q 'R-SCH-27' "$d/nolanes.c"; then
    echo "FAIL $name: lanes in the code with --no-lanes"
    fail=1
  elif ! cmp -s "$d/lanes.v.npy" "$d/nolanes.v.npy"; then
    echo "FAIL $name: the outputs differ"
    fail=1
  else
    echo "ok $name"
  fi
}

case_ helm37x9 helm 37 9 --lanes --prefetch          # a last group of 5 elements (R-CG-24.5: prefetched)
case_ helm37x9_f32 helm 37 9 --lanes --dtype f32 --prefetch # 16 lanes, a last group of 5
case_ helm37x9_seq helm 37 9 --lanes --no-openmp
case_ helm40x13 helm 40 13                           # the default: the lanes pay (R-SCH-27 (d))
case_ interp24x7 cfd9 24 7 --lanes                   # whole groups only
case_ interp19x17 cfd9 19 17 --lanes --acsl          # the code that WP proves
case_ helm20x18 helm 20 18 --lanes                   # 18^3 = 729 x 8 values, a last group of 4
case_ helm20x17 helm 20 17 --lanes --prefetch        # the next group's u prefetched, not D (R-CG-24.3)
# R-CG-26.1: v streamed (teil_lanes_out_nt); the slices of N = n^3 values of a group's
# elements start N mod 8 = 1, 7, 0, 3 and 5 values apart past line boundaries
case_ helm37x9_st helm 37 9 --lanes --stream         # and a last group of 5
case_ helm37x9_f32_st helm 37 9 --lanes --stream --dtype f32
case_ interp24x7_st cfd9 24 7 --lanes --stream --no-openmp
case_ interp16x10_st cfd9 16 10 --lanes --stream
case_ interp24x11_st cfd9 24 11 --lanes --stream
case_ interp17x13_st cfd9 17 13 --lanes --stream     # a last group of 1
exit $fail
