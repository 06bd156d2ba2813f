#!/bin/sh
# acsl/kernels.sh [OUTDIR] - writes the kernels that `make acsl` proves
# (spec/acsl.md R-ACSL-9) into OUTDIR (default build/acsl/kernels) and prints
# their paths, one per line:
#
#   - every examples/*.teil, examples/*.tm and examples/bench/*.teil, with
#     `teilc --acsl` (the default schedule) and `teilc --acsl --pad 8`;
#   - every examples/*.sched and examples/teml/*.sched, applied to the program
#     of the same base name with `teilc --acsl --schedule FILE`, and
#     examples/teml/bmm.teil with its default schedule (a copy per batch);
#   - examples/bench/helm.teil with --lanes, unless the default is that code, and
#     examples/bench/cfd4.teil with --lanes --no-stream (R-CG-26.1);
#   - of the CFD sweep examples/bench/cfdN.teil, only n = 4, 8, 9, 10 and 13, and
#     n = 9 with --pad 8 (one size per size class, R-ACSL-9 (3)); ACSL_CFD=all
#     writes all ten sizes both ways.
#
# Needs build/bin/teilc (make all), or TEILC=path. Exit status 0, or 1 if teilc
# failed on some program (its message goes to stderr), 2 if teilc is missing.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
out=${1:-build/acsl/kernels}
teilc=${TEILC:-build/bin/teilc}
[ -x "$teilc" ] || { echo "acsl/kernels.sh: $teilc is missing; run make first" >&2; exit 2; }
mkdir -p "$out" || exit 2
rm -f "$out"/*.c "$out"/*.err

status=0
gen() { # NAME teilc-arguments...
  name=$1; shift
  if "$teilc" "$@" --acsl -o "$out/$name.c" 2>"$out/$name.err"; then
    rm -f "$out/$name.err"
    echo "$out/$name.c"
  else
    echo "acsl/kernels.sh: 'teilc $* --acsl' failed:" >&2
    sed 's/^/    /' "$out/$name.err" >&2
    status=1
  fi
}

for f in examples/*.teil examples/*.tm examples/bench/*.teil; do
  [ -f "$f" ] || continue
  b=$(basename "$f"); b=${b%.*}
  case $f in examples/bench/*) b=bench_$b ;; esac
  # R-ACSL-9 (3): one CFD sweep size per size class, unless ACSL_CFD=all.
  if [ "${ACSL_CFD:-}" != all ]; then
    case $b in
      bench_cfd9) ;;
      bench_cfd4 | bench_cfd8 | bench_cfd10 | bench_cfd13) gen "$b" "$f"; continue ;;
      bench_cfd*) continue ;;
    esac
  fi
  gen "$b" "$f"
  gen "${b}_pad8" "$f" --pad 8 >"$out/.pad8"
  # The same code with --pad 8 when every extent is already a multiple of 8: only the
  # file comment differs, and the default kernel's proof covers it.
  if [ -f "$out/${b}_pad8.c" ] && [ -f "$out/$b.c" ] &&
     [ "$(sed '1,/^ \*\//d' "$out/$b.c")" = "$(sed '1,/^ \*\//d' "$out/${b}_pad8.c")" ]; then
    rm -f "$out/${b}_pad8.c"
  else
    cat "$out/.pad8"
  fi
  rm -f "$out/.pad8"
done
# R-SCH-27 (c.1): helm in lanes, whose copy in that multiplies (teil_lanes_in_mul) no
# other kernel has. Whether the default puts helm in lanes depends on the CPU (R-SCH-27
# (d)), so it is proved with --lanes too, unless that is the default kernel's C.
gen bench_helm_lanes examples/bench/helm.teil --lanes >"$out/.lanes"
if [ -f "$out/bench_helm_lanes.c" ] && [ -f "$out/bench_helm.c" ] &&
   [ "$(sed '1,/^ \*\//d' "$out/bench_helm.c")" = "$(sed '1,/^ \*\//d' "$out/bench_helm_lanes.c")" ]; then
  rm -f "$out/bench_helm_lanes.c"
else
  cat "$out/.lanes"
fi
rm -f "$out/.lanes"
# R-CG-26.1: the bench's kernels in lanes stream their copy-out (their parameters exceed
# 16 x the L2), so the plain copy-out (teil_lanes_out into v) is proved on cfd4 in lanes.
gen bench_cfd4_lanes_nostream examples/bench/cfd4.teil --lanes --no-stream
# R-SCH-24.1, R-CG-20: the default schedule of examples/teml/bmm.teil (rows of 7) copies
# each batch's B into a local array with padded rows, read by whole-vector loops.
gen teml_bmm_default examples/teml/bmm.teil
for s in examples/*.sched examples/teml/*.sched; do
  [ -f "$s" ] || continue
  p=${s%.sched} prog=
  for e in teil tm; do [ -f "$p.$e" ] && prog=$p.$e; done
  if [ -z "$prog" ]; then
    echo "acsl/kernels.sh: $s has no program $p.teil or $p.tm" >&2
    status=1
    continue
  fi
  b=$(basename "$p")
  case $s in examples/teml/*) b=teml_$b ;; esac
  gen "${b}_sched" "$prog" --schedule "$s"
done
exit $status
