#!/bin/sh
# acsl/run.sh [FILE.c ...] - the Frama-C/WP proofs of `make acsl`.
#
# Runs acsl/wp-check on
#   - every acsl/*.c (acsl/store_check.c, which proves src/storeprim.h);
#   - the generated kernels of acsl/kernels.sh (spec/acsl.md R-ACSL-9: every
#     example and bench kernel with the default schedule and with --pad 8, and
#     the TeML schedules of examples/); ACSL_KERNELS=0 leaves them out;
#   - any further FILE.c given as arguments;
# prints "FILE: proved P/T (S s)" per file, in that order (with a note when a
# kernel was proved a second time with both provers), and then
#
#     acsl total: proved P/T
#
# and exits non-zero if any goal of any file is unproved, a file could not be
# checked, or a kernel could not be generated. A failing file's unproved goals
# are shown; its whole Frama-C output is in build/acsl/NAME.log.
#
# Environment: ACSL_JOBS files at a time (default 2); WP_PAR (default 16 here:
# WP's tasks are mostly in-process Qed simplifications that wait on a polling
# loop, so more slots than cores keep the CPU busy; see acsl/README.md),
# WP_TIMEOUT, WP_VERBOSE pass through to wp-check. Files under acsl/ are proved
# with WP_INT=machine and WP_PROVERS=z3,cvc4, all others (kernels) with
# WP_INT=nat and WP_PROVERS="cvc4 z3,cvc4". For tests of this script:
# WP_CHECK, the prover script (default acsl/wp-check), and ACSL_RESULTS, the
# directory of the per-file results (default build/acsl/results).
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
res=${ACSL_RESULTS:-build/acsl/results}

# ---- one job (run by xargs below): --job INDEX FILE
if [ "${1:-}" = --job ]; then
  i=$2 f=$3
  t0=$(date +%s)
  # the store primitives in the machine-integer model with both provers on
  # every goal, the generated kernels in the natural one with cvc4, and with
  # both again if cvc4 leaves a goal (spec/acsl.md R-ACSL-8)
  case $f in
    acsl/*) int=machine provers=z3,cvc4 ;;
    *) int=nat provers="cvc4 z3,cvc4" ;;
  esac
  out=$(WP_INT=$int WP_PROVERS=$provers sh "${WP_CHECK:-acsl/wp-check}" "$f" 2>"$res/$i.err")
  st=$?
  t1=$(date +%s)
  line=$(printf '%s\n' "$out" | tail -1)
  p=$(echo "$line" | sed -n 's|^proved \([0-9]*\)/\([0-9]*\)$|\1|p')
  t=$(echo "$line" | sed -n 's|^proved \([0-9]*\)/\([0-9]*\)$|\2|p')
  [ -n "$p" ] || { p=0; t=0; }
  again=0
  grep -q '; again with ' "$res/$i.err" && again=1
  echo "$p $t $st $((t1 - t0)) $again" >"$res/$i.res"
  exit 0
fi

start=$(date +%s)
mkdir -p build/acsl || exit 2
rm -rf "$res"
mkdir -p "$res" || exit 2

gen_bad=0
kernels=
if [ "${ACSL_KERNELS:-1}" != 0 ]; then
  kernels=$(sh acsl/kernels.sh build/acsl/kernels) || gen_bad=1
fi

files=
for f in acsl/*.c $kernels "$@"; do
  [ -e "$f" ] || { [ "$f" = 'acsl/*.c' ] && continue; }
  case " $files " in *" $f "*) continue ;; esac
  files="$files $f"
done
[ -n "$files" ] || { echo "acsl/run.sh: no files to check" >&2; exit 2; }

WP_PAR=${WP_PAR:-16}
export WP_PAR
# Largest files first (the proof time grows with the size), results in order.
i=0
for f in $files; do
  i=$((i + 1))
  echo "$(wc -c <"$f") $i $f"
done | sort -rn | cut -d' ' -f2- | xargs -P "${ACSL_JOBS:-2}" -n 2 sh acsl/run.sh --job

proved=0 total=0 bad=0 i=0
for f in $files; do
  i=$((i + 1))
  if [ -f "$res/$i.res" ]; then
    read -r p t st secs again <"$res/$i.res"
  else
    p=0 t=0 st=2 secs=0 again=0
  fi
  note=
  [ "$again" = 1 ] && note=", cvc4 alone left goals: proved again with z3 and cvc4"
  echo "$f: proved $p/$t (${secs} s$note)"
  proved=$((proved + p)); total=$((total + t))
  if [ "$st" -ne 0 ] || [ "$p" -ne "$t" ] || [ "$t" -eq 0 ]; then
    bad=$((bad + 1))
    [ -f "$res/$i.err" ] && sed 's/^/    /' "$res/$i.err"
  fi
done
rm -rf "$res"
[ "$gen_bad" -eq 0 ] || echo "acsl/run.sh: some kernels could not be generated (see above)"
echo "acsl: $i files, $bad failing, $(($(date +%s) - start)) s"
echo "acsl total: proved $proved/$total"
[ "$bad" -eq 0 ] && [ "$gen_bad" -eq 0 ] && [ "$proved" -eq "$total" ] && [ "$total" -gt 0 ]
