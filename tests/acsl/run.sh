#!/bin/sh
# Tests of teilc --acsl (spec/acsl.md, rules R-ACSL-n).
#
#   tests/acsl/run.sh [BIN_DIR]          (default: build/bin)
#
# 1. Same values (R-ACSL-1): for every golden case tests/run/CASE, the kernel
#    of `teilc --acsl --main` (default, --pad 8, --dtype f32) builds with
#    $CC -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Werror, and its
#    outputs on the case's inputs equal, bit for bit (npycmp --rtol 0
#    --atol 0), those of the kernel without --acsl; and they match the
#    expected values as in tests/compile.
# 2. Shape of the annotations (R-ACSL-2..7), on the kernels of
#    acsl/kernels.sh: one loop annotation (with a variant) per loop that
#    Frama-C sees (the file preprocessed with -D__FRAMAC__), every
#    OpenMP pragma hidden from Frama-C, one teil_part function per top-level
#    node, no floating-point type inside an annotation.
# 3. Proofs of programs this project did not write for the ACSL work: every
#    tests/compile/progs/* with the default schedule and with --pad 8 is
#    proved by acsl/wp-check (all goals; with the provers acsl/run.sh gives
#    a kernel). ACSL_PROGS=all adds every
#    tests/run/*/prog.* (about 90 more kernels; minutes); ACSL_PROGS=0 skips
#    part 3 (e.g. without Frama-C).
# 4. WP refutes broken kernels, in both integer models (R-ACSL-8): the kernel
#    of examples/trace.tm is proved, and three mutants of it are not (exit
#    1, "proved P/T" with P < T): a read one element past B's end, a loop
#    bound one too large, and an index that overflows by a multiple of 2^64,
#    so that the wrapped value is in bounds (an overflow goal must fail).
#    Skipped, and counted as failed, when frama-c is not installed, unless
#    ACSL_PROGS=0.
# 5. WP_PROVERS (R-ACSL-8): a malformed value is a one-line error, status 2;
#    with "cvc4 z3,cvc4" on acsl/store_check.c, whose goals cvc4 alone does
#    not all prove, wp-check says so, runs WP again with both provers, and
#    reports every goal proved.
# 6. acsl/run.sh's report (R-ACSL-8), with a stand-in for wp-check (WP_CHECK)
#    that answers at once: a kernel that cvc4 alone left goals of gets the
#    note "proved again with z3 and cvc4" on its line and the others none; a
#    file with an unproved goal makes the run fail and shows its errors.
#
# Jobs run in parallel ($JOBS, default 2). The last line is exactly
# "N passed, M failed"; the exit status is 0 iff nothing failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ "${ACSL_JOB:-}" = 1 ] || BIN=${1:-build/bin}
CC=${CC:-gcc}
CFLAGS="-std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Werror"
export BIN CC CFLAGS

# ---------------------------------------------------------------- one job
if [ "${ACSL_JOB:-}" = 1 ]; then
  kind=$1 src=$2 cfg=$3 work=$4
  name="$kind $src $cfg"
  dir=$(mktemp -d "$work/job.XXXXXX") || { echo "FAIL $name: mktemp"; exit 0; }
  fail() { echo "FAIL $name: $1"; [ -f "$dir/log" ] && sed 's/^/    /' "$dir/log" | head -20; exit 0; }
  case $cfg in
    default) flags= ;;
    pad8) flags="--pad 8" ;;
    f32) flags="--dtype f32" ;;
  esac
  case $kind in
    values)
      prog=$(ls "$src"/prog.* | head -1)
      for v in plain acsl; do
        a=; [ $v = acsl ] && a=--acsl
        # shellcheck disable=SC2086
        "$BIN/teilc" "$prog" --main $flags $a -o "$dir/$v.c" >"$dir/log" 2>&1 || fail "teilc $a failed"
        $CC $CFLAGS "$dir/$v.c" -o "$dir/$v" -lm >"$dir/log" 2>&1 || fail "the $v code does not build warning-free"
        set --
        for f in "$src"/in/*.npy; do
          [ -f "$f" ] && set -- "$@" --in "$(basename "$f" .npy)=$f"
        done
        mkdir -p "$dir/$v.out"
        for f in "$src"/expect/*.npy; do
          [ -f "$f" ] && set -- "$@" --out "$(basename "$f" .npy)=$dir/$v.out/$(basename "$f")"
        done
        "$dir/$v" "$@" >"$dir/log" 2>&1 || fail "the $v kernel failed"
      done
      tol=
      [ "$cfg" = f32 ] && tol="--rtol 1e-5 --atol 1e-6"
      for f in "$src"/expect/*.npy; do
        [ -f "$f" ] || continue
        b=$(basename "$f")
        "$BIN/npycmp" "$dir/plain.out/$b" "$dir/acsl.out/$b" --rtol 0 --atol 0 >"$dir/log" 2>&1 ||
          fail "$b: --acsl computes other values: $(cat "$dir/log")"
        # shellcheck disable=SC2086
        "$BIN/npycmp" "$f" "$dir/acsl.out/$b" $tol >"$dir/log" 2>&1 || fail "$b: $(cat "$dir/log")"
      done
      echo "ok $name"
      ;;
    shape)
      f=$src
      # the loops Frama-C sees: preprocessed as for it, comments kept (the AVX-512 paths
      # of the lane copies and the prefetches are hidden from it; helpers' loops count)
      $CC -E -C -P -D__FRAMAC__ "$f" >"$dir/framac.i" 2>"$dir/log" || fail "the preprocessor failed: $(head -1 "$dir/log")"
      loops=$(grep -cE '^[[:space:]]*for \(' "$dir/framac.i")
      variants=$(grep -c 'loop variant ' "$dir/framac.i")
      [ "$loops" -eq "$variants" ] || fail "$loops loops but $variants loop variants"
      pragmas=$(grep -c '#pragma omp' "$f")
      hidden=$(grep -A1 '^#ifndef __FRAMAC__$' "$f" | grep -c '#pragma omp')
      [ "$pragmas" -eq "$hidden" ] || fail "$pragmas pragmas, $hidden of them hidden from Frama-C"
      calls=$(grep -c '^  teil_part[0-9]*(' "$f")
      parts=$(grep -c '^static void teil_part[0-9]*(' "$f")
      [ "$calls" -eq "$parts" ] && [ "$parts" -ge 1 ] || fail "$parts parts, $calls calls"
      # no float type or literal inside an annotation (R-ACSL-2: memory safety needs none)
      awk '/\/\*@/{a=1} a && /double|float|[0-9]\.[0-9]|NAN/{bad=1; print} /\*\//{a=0} END{exit bad}' "$f" >"$dir/log" ||
        fail "a floating-point term in an annotation"
      echo "ok $name"
      ;;
    prove)
      # shellcheck disable=SC2086
      "$BIN/teilc" "$src" --acsl $flags -o "$dir/k.c" >"$dir/log" 2>&1 || fail "teilc --acsl failed"
      WP_INT=nat WP_PROVERS="cvc4 z3,cvc4" WP_LOG=$dir/wp.log WP_PAR=${WP_PAR:-16} sh acsl/wp-check "$dir/k.c" >"$dir/out" 2>"$dir/log" ||
        fail "not proved: $(tail -1 "$dir/out")"
      echo "ok $name ($(tail -1 "$dir/out"))"
      ;;
    provers)
      # cfg = bad: malformed values; cfg = again: the second run after cvc4 alone
      if [ "$cfg" = bad ]; then
        for v in "z3,,cvc4" "cvc4 alt-ergo" "z3," " "; do
          WP_PROVERS=$v sh acsl/wp-check "$src" >"$dir/out" 2>"$dir/err"
          st=$?
          [ $st -eq 2 ] || fail "WP_PROVERS='$v': status $st, not 2"
          [ "$(wc -l <"$dir/err")" -eq 1 ] && grep -q '^wp-check: WP_PROVERS' "$dir/err" ||
            fail "WP_PROVERS='$v': not a one-line error: $(head -3 "$dir/err")"
        done
        echo "ok $name"
      else
        WP_LOG=$dir/wp.log WP_PAR=${WP_PAR:-16} WP_PROVERS="cvc4 z3,cvc4" sh acsl/wp-check "$src" >"$dir/out" 2>"$dir/err" ||
          { cp "$dir/err" "$dir/log"; fail "not proved: $(tail -1 "$dir/out")"; }
        set -- $(sed -n 's|^wp-check: cvc4 proved \([0-9]*\)/\([0-9]*\) goals of .*; again with z3,cvc4$|\1 \2|p' "$dir/err")
        [ $# -eq 2 ] && [ "$1" -lt "$2" ] || { cp "$dir/err" "$dir/log"; fail "no second run after cvc4 alone"; }
        grep -qx "proved $2/$2" "$dir/out" || fail "the second run did not prove all $2 goals: $(tail -1 "$dir/out")"
        echo "ok $name (cvc4 alone $1/$2, then $(tail -1 "$dir/out"))"
      fi
      ;;
    report)
      # a wp-check that proves 3/3 goals, of again*.c only after a second run,
      # and 2/3 of short*.c (status 1), as acsl/wp-check reports them
      cat >"$dir/wp" <<'EOS'
case $1 in
  *short*) echo "proved 2/3"; echo "wp-check: 1 goal unproved in $1" >&2; exit 1 ;;
  *again*) echo "wp-check: cvc4 proved 2/3 goals of $1; again with z3,cvc4" >&2 ;;
esac
echo "proved 3/3"
EOS
      : >"$dir/again.c"; : >"$dir/plain.c"; : >"$dir/short.c"
      ACSL_KERNELS=0 ACSL_RESULTS=$dir/res WP_CHECK=$dir/wp sh acsl/run.sh "$dir/again.c" "$dir/plain.c" >"$dir/out" 2>&1 ||
        { cp "$dir/out" "$dir/log"; fail "acsl/run.sh failed with every goal proved"; }
      cp "$dir/out" "$dir/log"
      grep -Eq "^$dir/again.c: proved 3/3 \([0-9]+ s, cvc4 alone left goals: proved again with z3 and cvc4\)\$" "$dir/out" ||
        fail "no note on the kernel proved a second time"
      grep -Eq "^$dir/plain.c: proved 3/3 \([0-9]+ s\)\$" "$dir/out" || fail "a note on a kernel proved at once"
      grep -qx "acsl total: proved $((3 * $(ls acsl/*.c | wc -l) + 6))/$((3 * $(ls acsl/*.c | wc -l) + 6))" "$dir/out" ||
        fail "wrong total"
      ACSL_KERNELS=0 ACSL_RESULTS=$dir/res WP_CHECK=$dir/wp sh acsl/run.sh "$dir/plain.c" "$dir/short.c" >"$dir/out" 2>&1 &&
        { cp "$dir/out" "$dir/log"; fail "acsl/run.sh passed with a goal unproved"; }
      cp "$dir/out" "$dir/log"
      grep -q "^$dir/short.c: proved 2/3 " "$dir/out" && grep -q "^    wp-check: 1 goal unproved in $dir/short.c\$" "$dir/out" ||
        fail "the unproved file and its errors are not shown"
      echo "ok $name"
      ;;
    mutant)
      # cfg = MUTATION-MODEL; the unmutated kernel first, then the mutant
      [ "$cfg" = frama-c-missing ] && fail "frama-c is not installed (apt-get install -y frama-c-base why3 z3 cvc4)"
      mut=${cfg%-*} int=${cfg#*-}
      "$BIN/teilc" "$src" --acsl -o "$dir/k.c" >"$dir/log" 2>&1 || fail "teilc --acsl failed"
      WP_INT=$int WP_LOG=$dir/wp.log WP_PAR=${WP_PAR:-16} sh acsl/wp-check "$dir/k.c" >"$dir/out" 2>"$dir/log" ||
        fail "the unmutated kernel is not proved: $(tail -1 "$dir/out")"
      case $mut in
        bounds) sed 's/\* B\[30\*r2 + r1\];$/* B[30*r2 + r1 + 1];/' ;;
        loop) sed 's/r2 < 40; r2++/r2 < 41; r2++/' ;;
        wrap) sed 's/\* B\[30\*r2 + r1\];$/* B[30*r2 + r1 + 4611686018427387904*(4*r1)];/' ;;
      esac <"$dir/k.c" >"$dir/m.c"
      cmp -s "$dir/k.c" "$dir/m.c" && fail "the mutation $mut does not apply to the kernel"
      # its false goals would only run into the prover timeout: 3 s, not 10
      WP_INT=$int WP_LOG=$dir/wpm.log WP_PAR=${WP_PAR:-16} WP_TIMEOUT=3 sh acsl/wp-check "$dir/m.c" >"$dir/out" 2>"$dir/err"
      st=$?
      [ $st -eq 1 ] || fail "wp-check exits $st on the mutant, not 1: $(tail -1 "$dir/out")"
      set -- $(sed -n 's|^proved \([0-9]*\)/\([0-9]*\)$|\1 \2|p' "$dir/out")
      [ $# -eq 2 ] && [ "$1" -lt "$2" ] || fail "the mutant is proved: $(tail -1 "$dir/out")"
      case $mut in
        bounds) want=mem_access ;; loop) want=loop_invariant ;; wrap) want=signed_overflow ;;
      esac
      grep -q "Goal typed_.*$want" "$dir/err" || fail "no unproved $want goal: $(head -3 "$dir/err")"
      echo "ok $name (mutant $(tail -1 "$dir/out"))"
      ;;
  esac
  rm -rf "$dir"
  exit 0
fi

# ---------------------------------------------------------------- the job list
for t in teilc npycmp; do
  [ -x "$BIN/$t" ] || { echo "tests/acsl/run.sh: $BIN/$t is missing; run make first" >&2; echo "0 passed, 1 failed"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/acsl-tests.XXXXXX") || exit 2
jobs=$work/jobs
: >"$jobs"
for c in tests/run/*/; do
  c=${c%/}
  ls "$c"/prog.* >/dev/null 2>&1 || continue
  for cfg in default pad8 f32; do
    echo "values $c $cfg" >>"$jobs"
  done
done
TEILC=$BIN/teilc sh acsl/kernels.sh "$work/kernels" >"$work/kernels.list" 2>"$work/kernels.err" ||
  { echo "FAIL acsl/kernels.sh"; sed 's/^/    /' "$work/kernels.err"; }
while read -r k; do
  echo "shape $k -" >>"$jobs"
done <"$work/kernels.list"
case ${ACSL_PROGS:-some} in
  0) ;;
  *)
    set -- tests/compile/progs/*.teil tests/compile/progs/*.tm
    [ "${ACSL_PROGS:-some}" = all ] && set -- "$@" tests/run/*/prog.*
    for p in "$@"; do
      [ -f "$p" ] || continue
      for cfg in default pad8; do
        echo "prove $p $cfg" >>"$jobs"
      done
    done
    ;;
esac

if command -v frama-c >/dev/null 2>&1; then
  for m in bounds loop wrap; do
    for int in nat machine; do
      echo "mutant examples/trace.tm $m-$int" >>"$jobs"
    done
  done
  echo "provers acsl/store_check.c bad" >>"$jobs"
  echo "provers acsl/store_check.c again" >>"$jobs"
elif [ "${ACSL_PROGS:-some}" != 0 ]; then
  echo "mutant examples/trace.tm frama-c-missing" >>"$jobs"
fi
echo "report acsl/run.sh stand-in" >>"$jobs"             # part 6: no prover needed

out=$work/out
sed "s|\$| $work|" "$jobs" | ACSL_JOB=1 xargs -P "${JOBS:-2}" -n 4 sh tests/acsl/run.sh >"$out" 2>&1
grep -v '^ok ' "$out"
pass=$(grep -c '^ok ' "$out")
fail=$(grep -c '^FAIL ' "$out")
[ -s "$work/kernels.err" ] && fail=$((fail + 1))
total=$(wc -l <"$jobs")
[ $((pass + fail)) -ge "$total" ] || fail=$((fail + total - pass - fail))
rm -rf "$work"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
