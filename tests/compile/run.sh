#!/bin/sh
# Tests of the compiler teilc (spec/compiler.md, rules R-CG-n).
#
#   tests/compile/run.sh [BIN_DIR]          (default: build/bin)
#
# 1. Golden cases: for every tests/run/CASE (prog.teil or prog.tm, in/*.npy,
#    expect/*.npy; NaN in expect = the undefined value) compile with
#    `teilc --main` in five configurations (default, --pad 8, --no-lift,
#    --dtype f32, --stream), build with $CC -std=c11 -O3 -march=native -fopenmp -Wall
#    -Wextra -Werror (R-CG-12: warning-free), run on the inputs, and compare
#    every expected output with npycmp (f32 with a relative tolerance of 1e-5).
# 2. Examples: examples/*.teil and examples/*.tm are compiled and built in the
#    first three configurations, and checked with `teil-check --diff`
#    (R-CG-16) plain and with --pad 8.
# 3. tests/compile/progs/*: `teil-check --diff` with --pad 1, --pad 3,
#    --no-lift --pad 8, and --stream (R-CG-26).
# 4. The driver and the command line (R-CG-13..R-CG-15).
#
# Jobs run in parallel ($JOBS, default: the number of CPUs); TEILC_QUICK=1 runs
# only part 4. The last line is
# exactly "N passed, M failed"; the exit status is 0 iff nothing failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ "${TEILC_JOB:-}" = 1 ] || BIN=${1:-build/bin}
CC=${CC:-gcc}
CFLAGS="-std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Werror"
# The default schedule is sized from the caches (R-SCH-17); the expected schedules below
# are those of a 32 KiB L1 and a 1 MiB L2, whatever the host's (the caller may set others)
TEIL_L1_BYTES=${TEIL_L1_BYTES:-32768} TEIL_L2_BYTES=${TEIL_L2_BYTES:-1048576}
export BIN CC CFLAGS TEIL_L1_BYTES TEIL_L2_BYTES

# ---------------------------------------------------------------- one job
if [ "${TEILC_JOB:-}" = 1 ]; then
  kind=$1 src=$2 cfg=$3 work=$4
  name="$kind $src $cfg"
  dir=$(mktemp -d "$work/job.XXXXXX") || { echo "FAIL $name: mktemp"; exit 0; }
  fail() { echo "FAIL $name: $1"; [ -f "$dir/log" ] && sed 's/^/    /' "$dir/log" | head -15; exit 0; }
  case $cfg in
    default) flags= ;;
    pad8) flags="--pad 8" ;;
    nolift) flags="--no-lift" ;;
    f32) flags="--dtype f32" ;;
    stream) flags="--stream" ;;
    *) flags=$(echo "$cfg" | tr ',' ' ') ;;
  esac
  case $kind in
    case|build)
      [ "$kind" = case ] && prog=$(ls "$src"/prog.* | head -1) || prog=$src
      # shellcheck disable=SC2086
      "$BIN/teilc" "$prog" --main $flags -o "$dir/k.c" -H "$dir/k.h" >"$dir/log" 2>&1 || fail "teilc failed"
      $CC $CFLAGS "$dir/k.c" -o "$dir/k" -lm >"$dir/log" 2>&1 || fail "the generated code does not build warning-free"
      [ "$kind" = build ] && { echo "ok $name"; exit 0; }
      set --
      for f in "$src"/in/*.npy; do
        [ -f "$f" ] && set -- "$@" --in "$(basename "$f" .npy)=$f"
      done
      for f in "$src"/expect/*.npy; do
        [ -f "$f" ] && set -- "$@" --out "$(basename "$f" .npy)=$dir/$(basename "$f")"
      done
      "$dir/k" "$@" >"$dir/log" 2>&1 || fail "the kernel failed"
      tol=
      [ "$cfg" = f32 ] && tol="--rtol 1e-5 --atol 1e-6"
      for f in "$src"/expect/*.npy; do
        [ -f "$f" ] || continue
        # shellcheck disable=SC2086
        "$BIN/npycmp" "$f" "$dir/$(basename "$f")" $tol >"$dir/log" 2>&1 || fail "$(basename "$f" .npy): $(cat "$dir/log")"
      done
      echo "ok $name"
      ;;
    diff)
      # shellcheck disable=SC2086
      TMPDIR=$dir "$BIN/teil-check" --diff "$src" $flags --trials 2 >"$dir/log" 2>&1 || fail "teil-check --diff"
      echo "ok $name"
      ;;
  esac
  rm -rf "$dir"
  exit 0
fi

# ---------------------------------------------------------------- the job list
for t in teilc teil-check npycmp; do
  [ -x "$BIN/$t" ] || { echo "tests/compile/run.sh: $BIN/$t is missing; run make first" >&2; echo "0 passed, 1 failed"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/teilc-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
jobs=$work/jobs
: >"$jobs"
for c in tests/run/*/; do
  c=${c%/}
  ls "$c"/prog.* >/dev/null 2>&1 || continue
  for cfg in default pad8 nolift f32 stream; do echo "case $c $cfg $work" >>"$jobs"; done
done
for e in examples/*.teil examples/*.tm; do
  [ -f "$e" ] || continue
  for cfg in default pad8 nolift; do echo "build $e $cfg $work" >>"$jobs"; done
  for cfg in default pad8; do echo "diff $e $cfg $work" >>"$jobs"; done
done
for p in tests/compile/progs/*.teil tests/compile/progs/*.tm; do
  [ -f "$p" ] || continue
  for cfg in default --pad,3 --no-lift,--pad,8 --stream; do echo "diff $p $cfg $work" >>"$jobs"; done
done
[ "${TEILC_QUICK:-}" = 1 ] && : >"$jobs"   # only the command-line checks
n=${JOBS:-$(nproc 2>/dev/null || echo 2)}
results=$work/results
TEILC_JOB=1 xargs -r -P "$n" -n 4 sh "$0" <"$jobs" >"$results" 2>&1

# ---------------------------------------------------------------- driver and CLI
check() { # name command... : passes when the command exits 0
  name=$1
  shift
  if "$@" >"$work/cli.log" 2>&1; then
    echo "ok cli $name" >>"$results"
  else
    echo "FAIL cli $name" >>"$results"
    sed 's/^/    /' "$work/cli.log" | head -10 >>"$results"
  fi
}
status() { # expected-status command...
  want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || { echo "exit status $got, expected $want: $*"; cat "$work/err"; return 1; }
}
T=$BIN/teilc
mm=examples/mm.teil
bad=tests/check/err_fm3_assign_mismatch.teil

# R-CG-15: exit statuses and diagnostics
check "ill-typed: status 1" status 1 "$T" "$bad" -o "$work/x.c"
check "ill-typed: teil-check's diagnostics" sh -c "'$T' '$bad' -o '$work/x.c' 2>'$work/e1'; '$BIN/teil-check' '$bad' 2>'$work/e2'; cmp '$work/e1' '$work/e2'"
check "no program: status 2" status 2 "$T"
check "unknown option: status 2" status 2 "$T" "$mm" --frobnicate
check "missing file: status 2" status 2 "$T" "$work/none.teil"
check "--pad 0: status 2" status 2 "$T" "$mm" --pad 0
check "--dtype f16: status 2" status 2 "$T" "$mm" --dtype f16
check "--dump=foo: status 2" status 2 "$T" "$mm" --dump=foo
check "--func int: status 2" status 2 "$T" "$mm" --func int
check "unwritable -o: status 2" status 2 "$T" "$mm" -o "$work/no/such/dir/x.c"
check "-h: status 0" status 0 "$T" -h
check "-o - writes the C code to stdout (no file named -)" sh -c "'$T' '$mm' -o - | grep -q '^void ' && ! test -e ./-"
for pass in teil lift lower pad; do
  check "--dump=$pass" sh -c "'$T' '$mm' --dump=$pass --pad 4 | grep -q ."
done
check "--dump=lower prints loops" sh -c "'$T' '$mm' --dump=lower | grep -q 'for i1 in \\[0, 3)'"
check "R-CG-19: full blocks split from the partial one" sh -c "'$T' tests/compile/progs/partial_block.teil --dump=sched >'$work/pb' && grep -q 'for i2t in \\[0, 288) step 24' '$work/pb' && grep -q 'for i2t in \\[288, 300) step 24' '$work/pb' && ! grep -q 'min(' '$work/pb'"
check "R-CG-20: rows of 7 of local arrays run as 8 lanes, the outputs keep their extents" sh -c "'$T' tests/compile/progs/lanes.teil --dump=sched >'$work/ln' && grep -q 'in \\[0, 8) simd { _t1_r\\[0, i4\\] +=' '$work/ln' && grep -q 'for i4 in \\[0, 7) simd { v\\[i1, i2, i3, i4\\] = v_r\\[i3, i4\\] }' '$work/ln' && ! grep -Eq 'in \\[0, (8|16)\\).*[{] [vw]\\[' '$work/ln'"
printf 'alloc input A : [3, 3]\nalloc input u : [50, 3, 3, 3]\nalloc output v : [50, 3, 3, 3]\nv = contr 2 6 (contr 2 6 (contr 2 6 (prod u (prod A (prod A A)))))\n' >"$work/cfd3.teil"
check "R-CG-20: rows of 13 and 4 run as 16 and 8 lanes; rows of 9 (1 mod 8) keep 9 lanes in rows padded to 16, with no fill; rows of 3 stay (8 > 2 x 3)" sh -c "'$T' examples/bench/cfd13.teil --dump=sched | grep -q 'in \\[0, 16) simd' && '$T' examples/bench/cfd9.teil --dump=sched >'$work/ln9' && grep -q 'for i4 in \\[0, 9) simd { _t1_r\\[0, i4\\] += u\\[i1, i2, 0, r1\\] \\* A_p1\\[r1, i4\\] }' '$work/ln9' && ! grep -q 'in \\[0, 16)' '$work/ln9' && '$T' examples/bench/cfd9.teil -o '$work/ln9.c' && grep -q 'double _t1_r\\[144\\];' '$work/ln9.c' && grep -q 'A_p1_ro\\[16\\*r1 + i4\\]' '$work/ln9.c' && ! grep -q 'z1 + z2\\] = 0;' '$work/ln9.c' && '$T' examples/bench/cfd11.teil | grep -q 'S_p1\\[16\\*z1 + z2\\] = 0;\\|A_p1\\[16\\*z1 + z2\\] = 0;' && '$T' examples/bench/cfd4.teil --dump=sched | grep -q 'in \\[0, 8) simd' && '$T' '$work/cfd3.teil' --dump=sched | grep -q 'local _t1_r' && ! '$T' '$work/cfd3.teil' --dump=sched | grep -q 'in \\[0, 8)'"
check "R-CG-20: rows of 10 and 11 run as 8 + 4 = 12 lanes of register blocks padded to 16 and of element parts padded to 12, and the locals whose lanes [0, 12) a register block stores first get no fill; rows of 12 keep 12 lanes and A_p1 no fill" sh -c "'$T' examples/bench/cfd10.teil --dump=sched >'$work/ln10' && grep -q 'for i4 in \\[0, 12) simd { _t1_r\\[0, i4\\] += u\\[i1, i2, 0, r1\\] \\* A_p1\\[r1, i4\\] }' '$work/ln10' && ! grep -q 'in \\[0, 16) simd' '$work/ln10' && '$T' examples/bench/cfd10.teil -o '$work/ln10.c' && grep -q 'double _t1_r\\[160\\];' '$work/ln10.c' && grep -q 'double _t1_l\\[1200\\];' '$work/ln10.c' && test \$(grep -c 'z1 + .*\\] = 0;' '$work/ln10.c') -eq 1 && '$T' tests/compile/progs/lanes_half.teil --dump=sched | grep -q 'for i4 in \\[0, 12) simd { w_r\\[0, i4\\] += _t3_l\\[0, i2, 0, r1\\] \\* S_p2\\[r1, i4\\] }' && '$T' examples/bench/cfd12.teil --dump=sched | grep -q 'for i4 in \\[0, 12) simd { _t1_r\\[0, i4\\] +=' && '$T' examples/bench/cfd12.teil -o '$work/ln12.c' && grep -q 'A_p1_ro\\[16\\*r1 + i4\\]' '$work/ln12.c' && ! grep -q 'A_p1\\[16\\*z1 + z2\\] = 0;' '$work/ln12.c'"
check "R-CG-20: no lanes padded with --pad 3" sh -c "'$T' tests/compile/progs/lanes.teil --pad 3 --dump=sched >'$work/ln3' && ! grep -q 'in \\[0, 8) simd' '$work/ln3'"
check "R-CG-11 (tiny nest): bmm 1000 x 3 x 3 x 3 has no simd pragma and agrees with the interpreter; 1000 x 4 x 3 x 3 and 1000 x 3 x 64 x 3 (a loop of 4 or more) keep theirs, and so does a nest of one loop (R = add X Y over [1000], too small to be parallel)" sh -c "printf 'alloc input X : [1000]\\nalloc input Y : [1000]\\nalloc output R : [1000]\\nR = add X Y\\n' >'$work/one.teil' && '$T' '$work/one.teil' -o - | grep -q '^  #pragma omp simd\$' && printf 'alloc input A : [1000, 3, 3]\\nalloc input B : [1000, 3, 3]\\nalloc output C : [1000, 3, 3]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/tiny.teil' && '$T' '$work/tiny.teil' -o '$work/tiny.c' && ! grep -q 'omp simd' '$work/tiny.c' && grep -q 'omp parallel for' '$work/tiny.c' && '$BIN/teil-check' --diff '$work/tiny.teil' --trials 2 && sed 's/A : \\[1000, 3, 3\\]/A : [1000, 4, 3]/; s/C : \\[1000, 3, 3\\]/C : [1000, 4, 3]/' '$work/tiny.teil' >'$work/tiny4.teil' && '$T' '$work/tiny4.teil' -o - | grep -q 'omp simd' && sed 's/A : \\[1000, 3, 3\\]/A : [1000, 3, 64]/; s/B : \\[1000, 3, 3\\]/B : [1000, 64, 3]/' '$work/tiny.teil' >'$work/tiny64.teil' && '$T' '$work/tiny64.teil' -o - | grep -q 'omp simd'"
check "R-CG-21: a reduction reads another local array through a restrict alias, stores go to the array" sh -c "'$T' tests/compile/progs/lanes.teil -o '$work/ro.c' && grep -q 'const double \\*restrict _t1_l_ro = _t1_l;' '$work/ro.c' && grep -q '+= _t1_l_ro\\[' '$work/ro.c' && grep -q '^ *_t1_l\\[[^]]*\\] = _t1_r\\[' '$work/ro.c' && ! grep -Eq '_ro\\[[^]]*\\] \\+?= ' '$work/ro.c'"
check "R-CG-21: no alias of a parameter or of an array the loop writes" sh -c "'$T' tests/compile/progs/lanes.teil -o '$work/ro.c' && ! grep -Eq 'restrict (u|v|A|_t1_r|v_r)_ro' '$work/ro.c'"
check "R-CG-22: interp's three register blocks start from zero; no zeroing nest, load or fill is left" sh -c "'$T' examples/bench/interp.teil --dump=sched >'$work/z' && test \$(grep -c 'starts from zero (R-CG-22)' '$work/z') -eq 3 && ! grep -q 'load the register block' '$work/z' && ! grep -Eq '(_t1_l|_t2_l|v)\\[[^]]*\\] = 0 ' '$work/z' && ! grep -Eq '(_t1_l|_t2_l|_t1_r|_t2_r|v_r)\\[z1' '$work/z'"
check "R-CG-22: a register block inside the sums (mttkrp) keeps its load and its zeroing nest" sh -c "'$T' examples/bench/mttkrp.teil --dump=sched >'$work/z2' && ! grep -q 'R-CG-22' '$work/z2' && grep -q 'load the register block' '$work/z2'"
check "R-CG-23: sddmm's product and helm's Hadamard step are done by the register blocks' stores; a tensor read twice is kept" sh -c "'$T' tests/compile/progs/fuse.teil --dump=sched >'$work/f' && test \$(grep -c 'element-wise statement after it (R-CG-23)' '$work/f') -eq 2 && grep -q 'A\\[i1, i2\\] = S\\[i1, i2\\] \\* t1_r\\[' '$work/f' && ! grep -q '^  t1 : ' '$work/f' && grep -q '^  T : \\[40, 48\\]  workspace tensor' '$work/f' && grep -q 'F\\[i1, i2\\] = T\\[i1, i2\\] \\* T\\[i1, i2\\]' '$work/f'"
check "R-CG-23: the bench's sddmm keeps no temporary (its panel copy of C, R-SCH-26, aside)" sh -c "'$T' examples/bench/sddmm.teil --no-stream --dump=sched | grep -q 'A\\[i1, i2\\] = S\\[i1, i2\\] \\* t1_r' && '$T' examples/bench/sddmm.teil --stream --dump=sched | grep -q 'A_s\\[-i1t + i1, -i2t_ + i2\\] = S\\[i1, i2\\] \\* t1_r' && ! '$T' examples/bench/sddmm.teil --dump=sched | grep 'workspace temporary' | grep -qv 'a panel copy'"
check "R-SCH-17: a row tile of MC = 16 rows outside the k tile, its row blocks inside the column blocks (row_tile.teil, mm)" sh -c "'$T' tests/compile/progs/row_tile.teil --dump=sched >'$work/rt' && grep -Eq '^for i1t in \\[0, 128\\) step 16 parallel [{]' '$work/rt' && grep -A1 '^    for i2t in' '$work/rt' | grep -Eq '^      for i1t_ in \\[i1t, i1t \\+ 16\\) step 8 [{]' && '$T' examples/bench/mm.teil --dump=sched | grep -E -A2 '^for i1t in \\[0, 1024\\) step [0-9]* parallel' | grep -q 'r1t in'"
check "R-SCH-17 register file: 8 rows of a long row get NR = 3V (mm, row_tile.teil), unless the cache tile needs 4V (sddmm)" sh -c "'$T' examples/bench/mm.teil --dump=schedule | grep -qx 'C: stripmine 3 24' && '$T' tests/compile/progs/row_tile.teil --dump=schedule | grep -qx 'C: stripmine 3 24' && '$T' examples/bench/sddmm.teil --dump=schedule | grep -qx 't1: stripmine 4 32'"
check "R-SCH-17: a panel over half the L2 cache gets a column cache tile outside the row blocks, still folded and fused (cache_tile.teil with 8 (P + 1) rows, more row blocks than the host's P cores; with 16 rows on two or more cores, columns first instead)" sh -c "P=\$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); [ \"\$P\" -le 64 ] || P=64; R=\$((8 * (P + 1))); sed \"s/S : \\[16,/S : [\$R,/; s/B : \\[16,/B : [\$R,/; s/A : \\[16,/A : [\$R,/\" tests/compile/progs/cache_tile.teil >'$work/ctR.teil' && grep -q \"B : \\[\$R, 16\\]\" '$work/ctR.teil' && '$T' '$work/ctR.teil' --dump=sched >'$work/ct' && grep -Eq '^for i2t in \\[0, 32768\\) step [0-9]{3,} [{]' '$work/ct' && grep -A1 '^for i2t in' '$work/ct' | grep -q ' parallel [{]' && grep -q 'R-CG-22' '$work/ct' && grep -q 'R-CG-23' '$work/ct' && ! '$T' examples/bench/mm.teil --dump=sched | grep -q '^for i2t'"
check "R-SCH-17 (j): a target's last index of one iteration is not the vector loop when another reads with stride 1 (tmm 600 x 300 x 1: a 1 x 120 block along i, not 6 x 1), checked by --diff; a batch of dot products (bmm 100 x 64 x 64 x 1, whose loads along the batch have packable strides only) keeps its 8 x 1 blocks" sh -c "printf 'alloc input A : [100, 64, 64]\\nalloc input B : [100, 64, 1]\\nalloc output C : [100, 64, 1]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/bdot100.teil' && '$T' '$work/bdot100.teil' -o - | grep -q 'double C_r\\[8\\]; /\\* \\[8, 1\\] register block' && printf 'alloc input A : [600, 300]\\nalloc input B : [600, 1]\\nalloc output C : [300, 1]\\nC = contr 1 3 (prod A B)\\n' >'$work/tmmn1.teil' && '$T' '$work/tmmn1.teil' -o - | grep -q 'double C_r\\[120\\]; /\\* \\[1, 120\\] register block' && '$BIN/teil-check' --diff '$work/tmmn1.teil' --trials 2"
check "R-SCH-17: no row tile when the panel fits in half the L2 (48 sums x 80 columns, 30 KiB): 8-row blocks straight under the parallel loop" sh -c "printf 'alloc input A : [48, 128]\\nalloc input B : [48, 80]\\nalloc output C : [128, 80]\\nC = contr 1 3 (prod A B)\\n' >'$work/rt_small.teil' && '$T' '$work/rt_small.teil' --dump=sched | grep -Eq '^for i1t in \\[0, 128\\) step 8 parallel [{]' && '$BIN/teil-check' --diff '$work/rt_small.teil' --trials 2"
check "R-SCH-17: a row tile of up to half the L2 when the panel of the sums exceeds half the LLC share (640 x 1024 x 1152, a 9 MiB panel: MC = 80), an eighth below it (tmm 900 x 700 x 1100, 6 MiB: MC = 30)" sh -c "printf 'alloc input A : [640, 1024]\\nalloc input B : [1024, 1152]\\nalloc output C : [640, 1152]\\nC = contr 2 3 (prod A B)\\n' >'$work/rt_big.teil' && '$T' '$work/rt_big.teil' --dump=schedule | grep -qx 'C: stripmine 1 80' && printf 'alloc input A : [700, 900]\\nalloc input B : [700, 1100]\\nalloc output C : [900, 1100]\\nC = contr 1 3 (prod A B)\\n' >'$work/rt_mid.teil' && '$T' '$work/rt_mid.teil' --dump=schedule | grep -qx 'C: stripmine 1 30'"
check "R-SCH-17: no row tile when the sums go outside and a KC slice of the panel fits in half the L2 (128 x 60000 x 40: k blocks outermost, row blocks parallel), checked by --diff" sh -c "printf 'alloc input A : [128, 60000]\\nalloc input B : [60000, 40]\\nalloc output C : [128, 40]\\nC = contr 2 3 (prod A B)\\n' >'$work/rt_out.teil' && '$T' '$work/rt_out.teil' --dump=sched | grep -A1 -E '^for r1t in \\[0, [0-9]+\\) step 512 reduction [{]' | grep -Eq '^  for i1t in \\[0, 128\\) step 8 parallel [{]' && '$BIN/teil-check' --diff '$work/rt_out.teil' --trials 1"
check "R-SCH-17: the column blocks outside the row blocks when the sums go outside and the rows fit in half the L2 (16 x 64 x 40000: j blocks parallel, 8-row blocks inside), checked by --diff" sh -c "printf 'alloc input A : [16, 64]\\nalloc input B : [64, 40000]\\nalloc output C : [16, 40000]\\nC = contr 2 3 (prod A B)\\n' >'$work/cb.teil' && '$T' '$work/cb.teil' --dump=sched | grep -A1 -E '^for i2t in \\[0, 39984\\) step 24 parallel [{]' | grep -Eq '^  for i1t in \\[0, 16\\) step 8 [{]' && '$BIN/teil-check' --diff '$work/cb.teil' --trials 1"
check "R-SCH-17: no row tile either when the column blocks go outside the row blocks (128 x 64 x 40000: j blocks parallel, 8-row blocks inside)" sh -c "printf 'alloc input A : [128, 64]\\nalloc input B : [64, 40000]\\nalloc output C : [128, 40000]\\nC = contr 2 3 (prod A B)\\n' >'$work/cb128.teil' && '$T' '$work/cb128.teil' --dump=sched | grep -A1 -E '^for i2t in \\[0, 39984\\) step 24 parallel [{]' | grep -Eq '^  for i1t in \\[0, 128\\) step 8 [{]'"
check "R-SCH-17: a row tile goes inside the batch loop (batch_row_tile: the batch loop first, the 10-row tile around the k tile)" sh -c "'$T' tests/compile/progs/batch_row_tile.teil -o /dev/stdout | grep 'for (' | grep -v teil_pf | tr -d ' ' >'$work/brt' && head -1 '$work/brt' | grep -qx 'for(longlongi1=0;i1<3;i1++){' && grep -A1 -x 'for(longlongi2t=0;i2t<100;i2t+=10){' '$work/brt' | tail -1 | grep -qx 'for(longlongr1t=0;r1t<1024;r1t+=512){/\\*reduction\\*/'"
check "R-SCH-17 (register file): rows of 32 (4 vectors) get blocks of at most 6 rows; 32 rows: 4 x 32" sh -c "printf 'alloc input A : [2, 32, 32]\\nalloc input B : [2, 32, 32]\\nalloc output C : [2, 32, 32]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/b32.teil' && '$T' '$work/b32.teil' -o /dev/stdout | grep -q 'double C_r\\[128\\]; /\\* \\[4, 32\\] register block' && '$BIN/teil-check' --diff '$work/b32.teil'"
check "R-CG-25.1: a 4 x 32 register block (bmm 2 x 32^3) gets gcc's no-ivopts line; mm's 8 x 24 blocks do not" sh -c "'$T' '$work/b32.teil' -o /dev/stdout | grep -qx '#pragma GCC optimize (\"no-ivopts\")' && ! '$T' examples/bench/mm.teil -o /dev/stdout | grep -q 'no-ivopts'"
check "R-SCH-17 (few rows): 10 rows over a 3.2 MB panel (10x500x800) take one 10 x 16 block, column blocks parallel, no k tile" sh -c "printf 'alloc input A : [10, 500]\\nalloc input B : [500, 800]\\nalloc output C : [10, 800]\\nC = contr 2 3 (prod A B)\\n' >'$work/mm10.teil' && '$T' '$work/mm10.teil' -o '$work/mm10.c' && grep -q 'double C_r\\[160\\]; /\\* \\[10, 16\\] register block' '$work/mm10.c' && grep -A1 'omp parallel for' '$work/mm10.c' | grep -q 'for (long long i2t = 0; i2t < 800; i2t += 16)' && ! grep -q r1t '$work/mm10.c'"
check "R-SCH-17 step 3: a loop of one iteration is not the parallel one; the loop below it is (R = X*Y + X over [1, 100000])" sh -c "printf 'alloc input X : [1, 100000]\\nalloc input Y : [1, 100000]\\nalloc output R : [1, 100000]\\nR = add (mul X Y) X\\n' >'$work/row1.teil' && '$T' '$work/row1.teil' --dump=schedule | grep -qx 'R: parallelize 2' && '$BIN/teil-check' --diff '$work/row1.teil' --trials 2"
check "R-SCH-17 (one row): 1 x 300 x 1000 (a 2.4 MB panel) takes 1 x 120 blocks, column blocks parallel, and agrees with the interpreter (also --pad 4)" sh -c "printf 'alloc input A : [1, 300]\\nalloc input B : [300, 1000]\\nalloc output C : [1, 1000]\\nC = contr 2 3 (prod A B)\\n' >'$work/gemv.teil' && '$T' '$work/gemv.teil' -o '$work/gemv.c' && grep -q 'double C_r\\[120\\]; /\\* \\[1, 120\\] register block' '$work/gemv.c' && grep -A1 'omp parallel for' '$work/gemv.c' | grep -q 'for (long long i2t = 0; i2t < 960; i2t += 120)' && '$BIN/teil-check' --diff '$work/gemv.teil' --trials 2 && '$BIN/teil-check' --diff '$work/gemv.teil' --pad 4 --trials 2"
check "R-SCH-17 (one row): one row per batch over a small panel (60 x 300 per batch) is not blocked; the batch loop is parallel" sh -c "printf 'alloc input A : [50, 1, 60]\\nalloc input B : [50, 60, 300]\\nalloc output C : [50, 1, 300]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/bgemv.teil' && '$T' '$work/bgemv.teil' -o '$work/bgemv.c' && ! grep -q 'register block (R-SCH-21)' '$work/bgemv.c' && grep -A1 'omp parallel for' '$work/bgemv.c' | grep -q 'for (long long i1 = 0; i1 < 50; i1++)'"
check "R-SCH-17 (few rows): a panel that fits in half the L2 (bmm, 10 x 40 x 300 per batch) keeps 5 x 24 blocks" sh -c "printf 'alloc input A : [4, 10, 40]\\nalloc input B : [4, 40, 300]\\nalloc output C : [4, 10, 300]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/bmm10.teil' && '$T' '$work/bmm10.teil' -o /dev/stdout | grep -q 'double C_r\\[120\\]; /\\* \\[5, 24\\] register block'"
check "R-SCH-17 (balance): 40 rows make 8 blocks of 5 on 2 cores instead of 5 of 8 (the largest MR >= 5 whose block count is a multiple of the host's cores P; 8 when none or P divides 5), checked by --diff; so do mttkrp's private slices in tiles (private_40.teil, sums outside), checked by --diff with 2 and 3 threads" sh -c "P=\$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); [ \"\$P\" -le 64 ] || P=64; m=8; if [ \$((5 % P)) -ne 0 ]; then for c in 7 6 5; do if [ \$((40 % c)) -eq 0 ] && [ \$((40 / c % P)) -eq 0 ]; then m=\$c; break; fi; done; fi; printf 'alloc input A : [40, 200]\\nalloc input B : [200, 40]\\nalloc output C : [40, 40]\\nC = contr 2 3 (prod A B)\\n' >'$work/bal.teil' && '$T' '$work/bal.teil' --dump=sched | grep -q \"^for i1t in \\[0, 40) step \$m parallel [{]\" && '$T' tests/compile/progs/private_40.teil --dump=sched | grep -q \"^  for i1t in \\\\[0, 40) step \$m parallel workshare\" && '$BIN/teil-check' --diff '$work/bal.teil' --trials 2 && for n in 2 3; do OMP_NUM_THREADS=\$n '$BIN/teil-check' --diff tests/compile/progs/private_40.teil --trials 1 >/dev/null || exit 1; done"
check "R-SCH-17 (columns first): 16 x 64 x 4000 (two 8-row blocks over a 2 MB panel) makes the column blocks the parallel loop, the row blocks inside, on two or more cores (the row blocks on one), checked by --diff" sh -c "P=\$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1); printf 'alloc input A : [16, 64]\\nalloc input B : [64, 4000]\\nalloc output C : [16, 4000]\\nC = contr 2 3 (prod A B)\\n' >'$work/cf.teil' && '$T' '$work/cf.teil' --dump=sched >'$work/cf.sched' && if [ \"\$P\" -ge 2 ]; then grep -A1 -E '^for i2t in \\[0, [0-9]+\\) step [0-9]+ parallel [{]' '$work/cf.sched' | grep -Eq '^  for i1t in \\[0, 16\\) step 8 [{]'; else grep -q '^for i1t in \\[0, 16) step 8 parallel [{]' '$work/cf.sched'; fi && '$BIN/teil-check' --diff '$work/cf.teil' --trials 2"
check "R-SCH-17 step 4b (aligned partitions): aligned.teil's Khatri-Rao nest is stripmined by the 16 columns of A's parallel column blocks and that block loop made parallel (with an L2 of at most 2 MiB, so that the 1.2 MB panel takes one row block); --schedule with the dumped steps gives the same C; checked by --diff with 2 and 3 threads" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; [ \"\$l2\" -le 2097152 ] || exit 0; '$T' tests/compile/progs/aligned.teil --dump=schedule >'$work/al.sched' && grep -qx 'A: stripmine 4 16' '$work/al.sched' && grep -qx '_t1: stripmine 3 16' '$work/al.sched' && grep -A2 -x '_t1: stripmine 3 16' '$work/al.sched' | grep -qx '_t1: interchange 1 2' && grep -qx '_t1: parallelize 1' '$work/al.sched' && '$T' tests/compile/progs/aligned.teil -o '$work/al1.c' && '$T' tests/compile/progs/aligned.teil --schedule '$work/al.sched' -o '$work/al2.c' && cmp -s '$work/al1.c' '$work/al2.c' && OMP_NUM_THREADS=2 '$BIN/teil-check' --diff tests/compile/progs/aligned.teil --trials 2 && OMP_NUM_THREADS=3 '$BIN/teil-check' --diff tests/compile/progs/aligned.teil --trials 1"
check "R-SCH-17 (columns first over a temporary): aligned.teil with 32 rows (four 8-row blocks) still has the column blocks of A parallel, the row blocks inside, as the panel is the Khatri-Rao temporary, and _t1 in the same column blocks (L2 of at most 2 MiB); checked by --diff" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; [ \"\$l2\" -le 2097152 ] || exit 0; sed 's/B : \\[12,/B : [32,/; s/A : \\[12,/A : [32,/' tests/compile/progs/aligned.teil >'$work/al32.teil' && grep -q 'A : \\[32, 600\\]' '$work/al32.teil' && '$T' '$work/al32.teil' --dump=sched >'$work/al32.sched' && grep -A1 -E '^for i2t in \\[0, 600\\) step ([0-9]+) parallel [{]' '$work/al32.sched' | grep -Eq '^  for i1t in \\[0, 32\\) step 8 [{]' && S=\$(sed -n 's/^for i2t in \\[0, 600) step \\([0-9]*\\) parallel [{]/\\1/p' '$work/al32.sched') && grep -q \"^for i3t in \\[0, 600) step \$S parallel [{]\" '$work/al32.sched' && '$BIN/teil-check' --diff '$work/al32.teil' --trials 1"
check "R-SCH-17 (few rows): 10 x 300 x 700 (12 columns in a partial block) agrees with the interpreter, also with --pad 4" sh -c "printf 'alloc input A : [10, 300]\\nalloc input B : [300, 700]\\nalloc output C : [10, 700]\\nC = contr 2 3 (prod A B)\\n' >'$work/mm10p.teil' && '$T' '$work/mm10p.teil' -o /dev/stdout | grep -q 'for (long long i2t = 688; i2t < 700; i2t += 16)' && '$BIN/teil-check' --diff '$work/mm10p.teil' --trials 2 && '$BIN/teil-check' --diff '$work/mm10p.teil' --pad 4 --trials 2"
check "R-SCH-17 (bands): bmm 6 x 4 x 120 x 600 (4 rows per batch, 4.8 KB rows, a 576 KB panel) takes k blocks of 8 outside the column blocks, checked by --diff; not with a 192 KB panel (6 x 4 x 40 x 600), 12 rows, or 2.4 KB rows (6 x 4 x 250 x 300, 600 KB); without a batch, mm 4 x 120 x 6000 takes them with its column blocks parallel, mm 4 x 120 x 600 (bands of 19200 instances) does not" sh -c "printf 'alloc input A : [4, 120]\\nalloc input B : [120, 6000]\\nalloc output C : [4, 6000]\\nC = contr 2 3 (prod A B)\\n' >'$work/mmband.teil' && '$T' '$work/mmband.teil' --dump=schedule >'$work/mmband.sched' && grep -qx 'C: stripmine 2 8' '$work/mmband.sched' && grep -qx 'C: parallelize 2' '$work/mmband.sched' && '$BIN/teil-check' --diff '$work/mmband.teil' --trials 1 && sed 's/6000/600/g' '$work/mmband.teil' >'$work/mmband600.teil' && ! '$T' '$work/mmband600.teil' --dump=schedule | grep -q 'stripmine 2 8' && printf 'alloc input A : [6, 4, 120]\\nalloc input B : [6, 120, 600]\\nalloc output C : [6, 4, 600]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/band.teil' && '$T' '$work/band.teil' --dump=schedule >'$work/band.sched' && grep -qx 'C: stripmine 3 8' '$work/band.sched' && grep -qx 'C: scalar_replace 3' '$work/band.sched' && '$BIN/teil-check' --diff '$work/band.teil' --trials 1 && sed 's/120/40/g' '$work/band.teil' >'$work/band40.teil' && ! '$T' '$work/band40.teil' --dump=schedule | grep -q 'stripmine 3 8' && sed 's/\\[6, 4,/[6, 12,/' '$work/band.teil' >'$work/band12.teil' && ! '$T' '$work/band12.teil' --dump=schedule | grep -q 'stripmine 3 8' && sed 's/600/300/g; s/120/250/g' '$work/band.teil' >'$work/band300.teil' && ! '$T' '$work/band300.teil' --dump=schedule | grep -q 'stripmine 3 8'"
check "R-SCH-8, R-CG-19.3: 61 rows (no divisor in 4..8) get 8-row register blocks, 7 full blocks unrolled and a partial block of 5 rows" sh -c "'$T' tests/compile/progs/parallel.teil -o '$work/par61.c' && grep -q 'double C_r\[192\]; /\* \[8, 24\] register block' '$work/par61.c' && grep -q 'for (long long i1t = 0; i1t < 56; i1t += 8)' '$work/par61.c' && grep -q 'for (long long i1t = 56; i1t < 61; i1t += 8)' '$work/par61.c' && grep -q 'A\[67\*i1t + r1 + 469\]' '$work/par61.c' && grep -q 'A\[r1 + 4020\]' '$work/par61.c'"
check "R-LIFT-6 (the last step): mttkrp at 80x100x120x90 takes the Khatri-Rao order (both sums in the last step), within 1 % of the cheapest" sh -c "'$T' tests/compile/last_step.teil --emit-teil -o /dev/stdout | grep -qx 'A = contr 2 3 (contr 3 5 (prod B _t1))'"
check "R-LIFT-6 (the last step): costs further apart than 1 % keep the cheapest order (mttkrp at 8x20x24x18, 4 %)" sh -c "sed 's/80, 120, 90/8, 24, 18/; s/120, 100/24, 20/; s/90, 100/18, 20/; s/80, 100/8, 20/' tests/compile/last_step.teil >'$work/last_small.teil' && '$T' '$work/last_small.teil' --emit-teil -o /dev/stdout | grep -qx 'A = contr 2 4 (diag 3 5 (prod _t1 D))'"
check "R-LIFT-7: two sums of one step are nested by position: the innermost walks B's last index l (3), not k (5, the larger extent)" sh -c "'$T' tests/compile/progs/sum_order.teil --emit-teil -o /dev/stdout | grep -qx 'A = contr 2 3 (contr 3 5 (prod B _t1))' && '$T' tests/compile/progs/sum_order.teil --dump=lower | grep -q 'A\\[i1, i2\\] += B\\[i1, r1, r2\\] \\* _t1\\[r1, r2, i2\\]'"
check "R-CG-24: helm prefetches the next element of u and D (17.6 KB slices) for reading and of v for writing; interp (2.7 KB) prefetches nothing" sh -c "'$T' examples/bench/helm.teil -o '$work/pf.c' && grep -q '__builtin_prefetch(&u\\[2197\\*(i1 + 1) + teil_pf\\]);' '$work/pf.c' && grep -q '__builtin_prefetch(&D\\[2197\\*(i1 + 1) + teil_pf\\]);' '$work/pf.c' && grep -q '__builtin_prefetch(&v\\[2197\\*(i1 + 1) + teil_pf\\], 1);' '$work/pf.c' && '$T' examples/bench/interp.teil -o '$work/pi.c' && ! grep -q prefetch '$work/pi.c'"
# 2197 elements = 275 lines over the 6 x 13 = 78 row blocks of the six contractions: 4 lines (32 elements) each
check "R-CG-24: helm's prefetches are spread over the row loops of all six contractions, 32 elements of u, D and v per row block" sh -c "'$T' examples/bench/helm.teil -o '$work/pf.c' && grep -A1 'for (long long i2 = 0; i2 < 13; i2++) {' '$work/pf.c' | head -2 | grep -q 'register block' && grep -c 'for (long long teil_pf = 32\\*i2; teil_pf < 32\\*i2 + 32 && teil_pf < 2197; teil_pf += 8)' '$work/pf.c' | grep -qx 3 && grep -c 'for (long long teil_pf = 32\\*(65 + i2); teil_pf < 32\\*(65 + i2) + 32 && teil_pf < 2197; teil_pf += 8)' '$work/pf.c' | grep -qx 3 && test \$(grep -c 'teil_pf = 32' '$work/pf.c') -eq 18 && ! grep -q 'teil_pf = 0;' '$work/pf.c'"
# bmm: 1872 elements of A = 234 lines over the 9 row blocks i2t (step 8): 26 lines (208 elements) each
check "R-CG-24: bmm's batch loop (parallel, with a sum) prefetches A and B of the next batch over the row blocks i2t; coars (no sum) prefetches nothing" sh -c "'$T' examples/bench/bmm.teil -o '$work/pb.c' && grep -q 'for (long long teil_pf = 208\\*(i2t/8); teil_pf < 208\\*(i2t/8) + 208 && teil_pf < 1872; teil_pf += 8)' '$work/pb.c' && grep -q '__builtin_prefetch(&B\\[676\\*(i1 + 1) + teil_pf\\]);' '$work/pb.c' && ! grep -q 'prefetch(&C' '$work/pb.c' && '$T' examples/bench/coars.teil -o '$work/pco.c' && ! grep -q prefetch '$work/pco.c'"
check "R-CG-24: no prefetch when the next batch's slices exceed half the L2 (bmm 8 x 1 x 1000 x 600: 4.8 MB of B), but with 480 KB of B and 8 KB of A (8 x 1 x 1000 x 60); the first agrees with the interpreter" sh -c "printf 'alloc input A : [8, 1, 1000]\\nalloc input B : [8, 1000, 600]\\nalloc output C : [8, 1, 600]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/pfbig.teil' && '$T' '$work/pfbig.teil' -o '$work/pfbig.c' && ! grep -q __builtin_prefetch '$work/pfbig.c' && sed 's/600/60/g' '$work/pfbig.teil' >'$work/pfsmall.teil' && '$T' '$work/pfsmall.teil' -o - | grep -q '__builtin_prefetch(&B\\[60000\\*(i1 + 1)' && '$BIN/teil-check' --diff '$work/pfbig.teil' --trials 1"
check "R-CG-27: 8-row blocks of dot products (sddmm 2000 x 1 x 64, 4 KB per block) prefetch B's rows two blocks ahead, within B, and agree with the interpreter; not with 4 KB rows (200 x 500 x 1); a batch of them (bmm 2000 x 64 x 64 x 1) prefetches across batches instead of R-CG-24's next-batch slices" sh -c "printf 'alloc input S : [2000, 1]\\nalloc input B : [2000, 64]\\nalloc input C : [64, 1]\\nalloc output A : [2000, 1]\\nA = mul S (contr 2 3 (prod B C))\\n' >'$work/dot.teil' && '$T' '$work/dot.teil' -o '$work/dot.c' && grep -A2 '/\\* prefetch the rows of the block after next (R-CG-27)' '$work/dot.c' | grep -q '__builtin_prefetch(&B\\[64\\*i1t + 1024 + teil_pf\\]);' && grep -q 'teil_pf < 512 && 64\\*i1t + 1024 + teil_pf < 128000;' '$work/dot.c' && '$BIN/teil-check' --diff '$work/dot.teil' --trials 2 && printf 'alloc input B : [200, 500]\\nalloc input C : [500, 1]\\nalloc output A : [200, 1]\\nA = contr 2 3 (prod B C)\\n' >'$work/dot500.teil' && '$T' '$work/dot500.teil' -o - | grep -q 'register block' && ! '$T' '$work/dot500.teil' -o - | grep -q R-CG-27 && printf 'alloc input A : [2000, 64, 64]\\nalloc input B : [2000, 64, 1]\\nalloc output C : [2000, 64, 1]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' >'$work/bdot.teil' && '$T' '$work/bdot.teil' -o - | grep -q '__builtin_prefetch(&A\\[4096\\*i1 + 64\\*i2t + 1024 + teil_pf\\]);' && ! '$T' '$work/bdot.teil' -o - | grep -q R-CG-24 && '$BIN/teil-check' --diff '$work/bdot.teil' --trials 1"
check "R-SCH-24: helm's fourth contraction reads a padded copy of S (rows of 13 -> 16), one register block of 13 x 16 and no partial block" sh -c "'$T' examples/bench/helm.teil -o '$work/pc.c' && grep -q 'S_p2\\[16\\*p1 + p2\\] = S\\[13\\*p1 + p2\\];' '$work/pc.c' && grep -q '_t5_r\\[i4\\] += _t4_l_ro\\[169\\*i2 + r1\\] \\* S_p2_ro\\[16\\*r1 + i4\\];' '$work/pc.c' && ! grep -q 'i4t' '$work/pc.c'"
check "R-CG-23: the temporary fused into helm's register block store is not declared (builds with -Werror)" sh -c "'$T' examples/bench/helm.teil -o '$work/pw.c' && ! grep -q '_t3_l' '$work/pw.c' && $CC $CFLAGS -c '$work/pw.c' -o '$work/pw.o'"
check "R-CG-25: no memset/memcpy calls in the kernels of helm, bmm and cfd9 (gcc -O3), and the line is hidden from other compilers" sh -c "for k in helm bmm cfd9; do '$T' examples/bench/\$k.teil -o '$work/pm.c' && $CC $CFLAGS -S '$work/pm.c' -o '$work/pm.s' && ! grep -Eq 'call[[:space:]]+(memset|memcpy)' '$work/pm.s' || exit 1; done; grep -B1 'pragma GCC optimize' '$work/pm.c' | grep -q '^#if defined(__GNUC__) && !defined(__clang__) && !defined(__FRAMAC__)'"
check "R-CG-24: with --acsl the prefetch is hidden from Frama-C" sh -c "'$T' examples/bench/helm.teil --acsl -o '$work/pfa.c' && grep -B1 'prefetch the next element' '$work/pfa.c' | grep -q '^#ifndef __FRAMAC__'"
check "R-SCH-17: the sums go outside the row tiles when the panel exceeds the cache, the row blocks inside the panels (mttkrp 250^4)" sh -c "'$T' examples/bench/mttkrp.teil --dump=sched | grep -q '^for i1 in \\[0, 250) reduction region [{]' && '$T' examples/bench/mttkrp.teil --dump=sched | grep -q '^  for i1t in \\[0, 250) step 25 parallel workshare nowait [{]' && '$T' examples/bench/mttkrp.teil --dump=sched | grep -q 'for i1t_ in \\[i1t, i1t + 25) step 5 [{]'"
check "R-SCH-25, R-CG-11: mttkrp's Khatri-Rao temporary is a private slice of the sum loop: 64 copies of 250 x 250 (+4) in the workspace, one parallel region, omp for inside (without its barrier, R-CG-11 nowait); not without OpenMP" sh -c "'$T' examples/bench/mttkrp.teil --dump=schedule | grep -qx '_t1: private 1' && '$T' examples/bench/mttkrp.teil -o '$work/mkp.c' && grep -q '^#define MTTKRP_WORK_BYTES 32002048\$' '$work/mkp.c' && grep -q '^  #pragma omp parallel num_threads(teil_threads())\$' '$work/mkp.c' && grep -q '^    double \\*_t1_p = __builtin_assume_aligned(work + 0 + 62504 \\* (long long)teil_thread(), 64);' '$work/mkp.c' && grep -q '^      #pragma omp for schedule(static) nowait\$' '$work/mkp.c' && '$T' examples/bench/mttkrp.teil --no-openmp --dump=schedule | grep -c private | grep -qx 0 && $CC $CFLAGS -c '$work/mkp.c' -o '$work/mkp.o'"
check "R-SCH-25 (step 5): a sliced loop of 40 iterations (>= 32) makes the temporary private (private_40.teil); at 16^4 it is not (the nest that reads it has no parallel loop)" sh -c "'$T' tests/compile/progs/private_40.teil --dump=schedule | grep -qx '_t1: private 1' && sed 's/40/16/g' tests/compile/progs/private_40.teil >'$work/priv16.teil' && ! '$T' '$work/priv16.teil' --dump=schedule | grep -q 'private'"
check "R-SCH-17 (sums outside for R-SCH-25 from N_k = 20): mttkrp 40 x 40 x 40 x L keeps the private slice with L = 20; with L = 19 the Khatri-Rao temporary is whole, the row blocks are the parallel loop, and the code agrees with the interpreter" sh -c "for L in 19 20; do sed \"s/B : \\\\[40, 40, 40\\\\]/B : [40, 40, \$L]/; s/D : \\\\[40, 40\\\\]/D : [\$L, 40]/\" tests/compile/progs/private_40.teil >\"$work/privL\$L.teil\" || exit 1; done && '$T' '$work/privL20.teil' --dump=schedule | grep -qx '_t1: private 1' && '$T' '$work/privL20.teil' --dump=schedule | grep -qx 'A: parallelize 2' && '$T' '$work/privL19.teil' --dump=schedule >'$work/privL19.sched' && ! grep -q private '$work/privL19.sched' && grep -qx 'A: parallelize 1' '$work/privL19.sched' && grep -qx 'A: scalar_replace 2' '$work/privL19.sched' && '$BIN/teil-check' --diff '$work/privL19.teil' --trials 2"
check "R-SCH-25 (step 5): a sliced loop of 30 iterations (< 32) makes the Khatri-Rao temporary private when one slice takes at most half the L2 (private_l2.teil, 30 x 300 elements; 30 x J with J the largest in half the L2), not with J + 10; checked by --diff" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; J=\$((l2 / 2 / 240)); '$T' tests/compile/progs/private_l2.teil --dump=schedule | grep -qx '_t1: private 1' && sed \"s/300/\$J/g\" tests/compile/progs/private_l2.teil >'$work/pl2a.teil' && sed \"s/300/\$((J + 10))/g\" tests/compile/progs/private_l2.teil >'$work/pl2b.teil' && '$T' '$work/pl2a.teil' --dump=schedule | grep -qx '_t1: private 1' && ! '$T' '$work/pl2b.teil' --dump=schedule | grep -q private && '$BIN/teil-check' --diff tests/compile/progs/private_l2.teil --trials 2"
check "R-SCH-17, R-SCH-25: no cache tile of the columns when the sums go outside for private slices and the panel fits in the L2 (private_panel.teil, mttkrp 64 x J x 64 x 32 with a panel of J x 2048 sums, J x 16 KiB: J = L2 / 16 KiB is private, checked by --diff; so is 2J, in private tiles of half as many slices, with no cache tile either (the cache tile loop was the parallel one before))" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; J=\$((l2 / 16384)); for j in \$J \$((2 * J)); do sed \"s/C : \\\\[64, 64\\\\]/C : [64, \$j]/; s/D : \\\\[32, 64\\\\]/D : [32, \$j]/; s/A : \\\\[64, 64\\\\]/A : [64, \$j]/\" tests/compile/progs/private_panel.teil >\"$work/pp\$j.teil\" || exit 1; done && '$T' \"$work/pp\$J.teil\" --dump=sched | grep -q '^for i1t_ in \\[0, 64) step 32 reduction region [{]' && '$T' \"$work/pp\$((2 * J)).teil\" --dump=sched >'$work/pp2.sched' && grep -q '^for i1t_ in \\[0, 64) step 16 reduction region [{]' '$work/pp2.sched' && ! grep -q '^for i2t in' '$work/pp2.sched' && '$BIN/teil-check' --diff \"$work/pp\$((2 * J)).teil\" --trials 2 && '$BIN/teil-check' --diff \"$work/pp\$J.teil\" --trials 2"
check "R-SCH-17 (private tiles), R-SCH-25, R-SCH-23 (tiles): mttkrp 64 x 64 x 64 x 32 (private_panel.teil) keeps its Khatri-Rao slices in tiles of KS = 32 (16 KiB slices, 32 in half a 1 MiB L2; fewer with a smaller L2), the register block spanning a tile's KS x 32 sums; --dump=schedule replays to the same C; agrees with the interpreter with 2 and 3 threads; without the target's stripmine, private is refused with a reason; 30^4 is private now (tiles of 15)" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; ks=32; while [ \$((ks * 16384)) -gt \$((l2 / 2)) ]; do ks=\$((ks / 2)); done; '$T' tests/compile/progs/private_panel.teil --dump=sched >'$work/pt.sched' && grep -q '^for i1t_ in \\[0, 64) step '\$ks' reduction region [{]' '$work/pt.sched' && grep -q '^      for r1 in \\[i1t_, i1t_ + '\$ks') reduction [{]' '$work/pt.sched' && grep -q '_t1_p\\[i1 - i1t_, i2, i3\\] = D\\[i2, i3\\] \\* C\\[i1, i3\\]' '$work/pt.sched' && '$T' tests/compile/progs/private_panel.teil --dump=schedule >'$work/pt.s' && grep -qx \"_t1: stripmine 1 \$ks\" '$work/pt.s' && '$T' tests/compile/progs/private_panel.teil -o '$work/pt1.c' && '$T' tests/compile/progs/private_panel.teil --schedule '$work/pt.s' -o '$work/pt2.c' && cmp -s '$work/pt1.c' '$work/pt2.c' && for n in 2 3; do OMP_NUM_THREADS=\$n '$BIN/teil-check' --diff tests/compile/progs/private_panel.teil --trials 2 >/dev/null || exit 1; done && grep -vx \"_t1: stripmine 1 \$ks\" '$work/pt.s' >'$work/pt3.s' && ! '$T' tests/compile/progs/private_panel.teil --schedule '$work/pt3.s' -o /dev/null 2>'$work/pt3.err' && grep -q 'is not tiled by '\$ks' (stripmine it first)' '$work/pt3.err' && sed 's/40/30/g' tests/compile/progs/private_40.teil >'$work/pt30.teil' && '$T' '$work/pt30.teil' --dump=schedule | grep -qx '_t1: stripmine 1 15' && '$BIN/teil-check' --diff '$work/pt30.teil' --trials 2 >/dev/null"
check "R-CG-20 (private slices): mttkrp 30^4 (private_40.teil with 30) pads the rows of 30 of its private Khatri-Rao slice to 32, so the register block's loops run over 32 lanes; the slice's nest zeroes lanes 30 and 31 of each row it writes, and each of the 64 copies takes 15 x 30 x 32; with the slice's rows stripmined by 10 (a schedule file) the tile's pad lanes are zeroed at the top of the region instead; both agree with the interpreter with 2 and 3 threads" sh -c "sed 's/40/30/g' tests/compile/progs/private_40.teil >'$work/pd30.teil' && '$T' '$work/pd30.teil' --dump=sched >'$work/pd30.sched' && grep -q '^      for z3 in \\[30, 32) { _t1_p\\[i1 - i1t_, i2, z3\\] = 0 }' '$work/pd30.sched' && grep -q '^        for i2 in \\[0, 32) simd { A_r\\[0, i2\\] += B\\[i1t, r1, r2\\] \\* _t1_p\\[r1 - i1t_, r2, i2\\] }' '$work/pd30.sched' && '$T' '$work/pd30.teil' -o - | grep -q 'work + 0 + 14400 \\* (long long)teil_thread()' && '$T' '$work/pd30.teil' --dump=schedule | sed 's/^_t1: vectorize 3\$/_t1: stripmine 3 10\\n_t1: vectorize 4/' >'$work/pd30b.s' && '$T' '$work/pd30.teil' --schedule '$work/pd30b.s' --dump=sched >'$work/pd30b.sched' && grep -q '^      for z3 in \\[30, 32) { _t1_p\\[z1, z2, z3\\] = 0 }' '$work/pd30b.sched' && ! grep -q '_t1_p\\[i1 - i1t_, i2, z3\\]' '$work/pd30b.sched' && for n in 2 3; do OMP_NUM_THREADS=\$n '$BIN/teil-check' --diff '$work/pd30.teil' --trials 2 >/dev/null && OMP_NUM_THREADS=\$n '$BIN/teil-check' --diff '$work/pd30.teil' --schedule '$work/pd30b.s' --trials 2 >/dev/null || exit 1; done"
check "R-CG-20 (temporaries): mttkrp 64 x 30 x 64 x 16 keeps its whole Khatri-Rao temporary (64 x 16 x 30) in the workspace; its rows of 30 pad to 32, so the 4 x 30 register blocks run over 32 lanes, and the nest that writes a row zeroes its lanes 30 and 31; with that nest's rows stripmined by 10 (a schedule file), a nest before it zeroes every row's lanes 30 and 31; a temporary updated by += (examples/lift/scalar.teil) is zeroed over 32 lanes and gets no fill after its += loop; all agree with the interpreter" sh -c "printf 'alloc input B : [64, 64, 16]\\nalloc input C : [64, 30]\\nalloc input D : [16, 30]\\nalloc output A : [64, 30]\\nA = diag 2 3 (contr 2 4 (contr 3 4 (prod B (prod D C))))\\n' >'$work/kr30.teil' && '$T' '$work/kr30.teil' --dump=sched >'$work/kr30.sched' && grep -q '^    for z3 in \\[30, 32) { _t1\\[i1, i2, z3\\] = 0 }' '$work/kr30.sched' && grep -q '^      for i2 in \\[0, 32) simd { A_r\\[0, i2\\] += B\\[i1t, r1, r2\\] \\* _t1\\[r1, r2, i2\\] }' '$work/kr30.sched' && '$T' '$work/kr30.teil' --dump=schedule | sed 's/^_t1: vectorize 3\$/_t1: stripmine 3 10\\n_t1: vectorize 4/' >'$work/kr30b.s' && '$T' '$work/kr30.teil' --schedule '$work/kr30b.s' --dump=sched >'$work/kr30b.sched' && grep -q '^    for z3 in \\[30, 32) { _t1\\[z1, z2, z3\\] = 0 }' '$work/kr30b.sched' && ! grep -q '_t1\\[i1, i2, z3\\]' '$work/kr30b.sched' && '$T' examples/lift/scalar.teil --dump=sched >'$work/sc30.sched' && grep -qx 'for i1 in \\[0, 32) simd { _t1\\[i1\\] = 0 }' '$work/sc30.sched' && ! grep -q 'z1' '$work/sc30.sched' && '$BIN/teil-check' --diff '$work/kr30.teil' --trials 2 >/dev/null && '$BIN/teil-check' --diff '$work/kr30.teil' --schedule '$work/kr30b.s' --trials 2 >/dev/null && '$BIN/teil-check' --diff examples/lift/scalar.teil --trials 2 >/dev/null"
check "R-CG-20 (fills left out over tiles): the CFD operator at n = 18 (4 elements) stores its register blocks of 6 x 18 rows over tiles [i3t, i3t + 6) of the 18 rows and zeroes them from the tile's first row, so neither the element parts nor the register blocks get a zero fill; only the packed copy of A does; agrees with the interpreter" sh -c "printf 'alloc input A : [18, 18]\\nalloc input u : [4, 18, 18, 18]\\nalloc output v : [4, 18, 18, 18]\\nv = contr 2 6 (contr 2 6 (contr 2 6 (prod u (prod A (prod A A)))))\\n' >'$work/i18.teil' && '$T' '$work/i18.teil' --dump=sched >'$work/i18.sched' && grep -q '^  local _t1_l : \\[1, 18, 18, 18\\]' '$work/i18.sched' && grep -q '^    for i3t in \\[0, 18) step 6 [{]' '$work/i18.sched' && grep -q '^        for i4 in \\[0, 20) simd { _t1_l\\[0, i2, i3, i4\\] = _t1_r\\[-i3t + i3, i4\\] }' '$work/i18.sched' && [ \"\$(grep -c 'for z1 in' '$work/i18.sched')\" -eq 1 ] && grep -q '^  for z2 in \\[0, 24) { A_p1\\[z1, z2\\] = 0 }' '$work/i18.sched' && '$BIN/teil-check' --diff '$work/i18.teil' --trials 1 >/dev/null"
check "R-SCH-26, R-SCH-17 (panel copies): mm 32 x 64 x 512 (panel_mm.teil, rows of B 4 KiB apart, 4 row blocks) reads B through a panel copy in panels of NR = 24 columns, the last of 8 (512 = 21 x 24 + 8), made by a parallel loop; tmm 64 x 512 x 512 (panel_tmm.teil) also A in panels of MR = 8; both agree with the interpreter with 2 and 3 threads; rows of 500 (4000 bytes) or --pad 4 get no panel copy" sh -c "'$T' tests/compile/progs/panel_mm.teil --dump=schedule | grep -qx 'C: panel B' && '$T' tests/compile/progs/panel_mm.teil -o '$work/pan.c' && grep -A1 'panel copy of an input (R-SCH-26)' '$work/pan.c' | grep -q 'pragma omp parallel for' && grep -q 'B_panel\\[.*\\] = B\\[512\\*p2 + p3\\]' '$work/pan.c' && '$T' tests/compile/progs/panel_tmm.teil --dump=schedule | grep -c '^C: panel [AB]\$' | grep -qx 2 && for t in 2 3; do OMP_NUM_THREADS=\$t '$BIN/teil-check' --diff tests/compile/progs/panel_mm.teil && OMP_NUM_THREADS=\$t '$BIN/teil-check' --diff tests/compile/progs/panel_tmm.teil || exit 1; done && sed 's/512/500/g' tests/compile/progs/panel_mm.teil >'$work/pan500.teil' && ! '$T' '$work/pan500.teil' --dump=schedule | grep -q '^C: panel' && ! '$T' tests/compile/progs/panel_mm.teil --pad 4 --dump=schedule | grep -q '^C: panel'"
check "R-SCH-25: a private slice is right with more threads than copies (OMP_NUM_THREADS=100, at most 64 run) and with 7" sh -c "OMP_NUM_THREADS=100 '$BIN/teil-check' --diff --schedule tests/regress/sched-private.sched tests/regress/sched-private.teil && OMP_NUM_THREADS=7 '$BIN/teil-check' --diff --schedule tests/regress/sched-private.sched tests/regress/sched-private.teil"
check "R-CG-11 (nowait): the one worksharing loop of a region has no barrier (private_40.teil: schedule(static) nowait, right with 2, 3 and 7 threads); mttkrp 101 x 103 x 107 x 109, whose row blocks split into two worksharing loops (R-CG-19), keeps both barriers" sh -c "'$T' tests/compile/progs/private_40.teil -o - | grep -c '^      #pragma omp for schedule(static) nowait\$' | grep -qx 1 && for n in 2 3 7; do OMP_NUM_THREADS=\$n '$BIN/teil-check' --diff tests/compile/progs/private_40.teil --trials 1 >/dev/null || exit 1; done && printf 'alloc input B : [101, 107, 109]\\nalloc input C : [107, 103]\\nalloc input D : [109, 103]\\nalloc output A : [101, 103]\\nA = diag 2 3 (contr 2 4 (contr 3 4 (prod B (prod D C))))\\n' >'$work/nw2.teil' && '$T' '$work/nw2.teil' -o '$work/nw2.c' && grep -c '^ *#pragma omp for\$' '$work/nw2.c' | grep -qx 2 && ! grep -q nowait '$work/nw2.c'"
check "R-SCH-17: a short row read from a parameter is blocked by whole vectors (bmm, 26 = 24 + 2)" sh -c "'$T' examples/bench/bmm.teil --dump=schedule | grep -qx 'C: stripmine 4 24' && '$T' examples/bench/interp.teil --dump=schedule | grep -c stripmine | grep -qx 0"
check "--dump=pad marks padded loops" sh -c "'$T' examples/fig11.teil --pad 4 --dump=pad | grep -q ' padded '"
check "--emit-teil is a well-typed program" sh -c "'$T' examples/cfd_interp.teil --emit-teil -o '$work/l.teil' && '$BIN/teil-check' '$work/l.teil'"
check "--no-openmp emits no OpenMP pragma" sh -c "'$T' examples/cfd_interp.teil --no-openmp -o '$work/n.c' && ! grep -q 'pragma omp' '$work/n.c' && $CC -std=c11 -O2 -Wall -Wextra -Werror -c '$work/n.c' -o '$work/n.o'"
check "--openmp parallelizes a large nest" sh -c "'$T' tests/compile/progs/parallel.teil -o '$work/p.c' && grep -q 'pragma omp parallel for' '$work/p.c'"
check "--func names the function" sh -c "'$T' '$mm' --func my_mm | grep -q '^void my_mm('"

# R-CG-13: the header, used from a separate program
cat >"$work/user.c" <<'EOF'
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "mm.h"
int main(void) {
  double *A = aligned_alloc(64, 512), *B = aligned_alloc(64, 512), *C = aligned_alloc(64, 512);
  for (int i = 0; i < 64; i++)
    A[i] = B[i] = C[i] = 0;
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 4; k++)
      A[i * 8 + k] = i + k;
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < 5; j++)
      B[k * 8 + j] = k - j;
  mm(A, B, C, MM_WORK_BYTES ? aligned_alloc(64, MM_WORK_BYTES) : NULL);
  double want = 0;
  for (int k = 0; k < 4; k++)
    want += (2 + k) * (k - 4);
  if (C[2 * 8 + 4] != want || C[2 * 8 + 5] != 0 || MM_PAD != 8)
    return 1;
  puts("ok");
  return 0;
}
EOF
# R-CG-26: streaming stores
check "R-CG-26: --stream stages bmm's 8-row blocks (26 lines, aligned), 6-row blocks of 30 (1440 bytes, not aligned), sddmm's 8 x 32 blocks; not mm's or mttkrp's outputs, which the kernels read, nor those of the CFD operator at n = 13 and 7 (interp) and helm's, stored in element loops in planes that are not whole aligned lines" sh -c "'$T' examples/bench/bmm.teil --stream -o '$work/s1.c' && grep -q 'double C_s\\[208\\];' '$work/s1.c' && grep -q 'teil_stream(__builtin_assume_aligned(&C\\[1872\\*i1 + 26\\*i2t + 26\\*s2 + s3\\], 64), &C_s\\[26\\*s2 + s3\\], 208);' '$work/s1.c' && '$T' tests/compile/progs/stream_blocks.teil --stream | grep -q 'teil_stream(&C\\[1800\\*i1 + 30\\*i2t + 30\\*s2 + s3\\], &C_s\\[30\\*s2 + s3\\], 180);' && '$T' examples/bench/sddmm.teil --stream | grep -q 'double A_s\\[256\\];' && for k in mm mttkrp cfd13 helm interp; do ! '$T' examples/bench/\$k.teil --stream | grep -q teil_stream || exit 1; done"
check "R-CG-26: in element loops, the CFD operator at n = 8 streams each register block's 8 x 8 plane (512 bytes) straight from the block, n = 12 each 12 x 12 plane (1152 bytes) staged, n = 4 (128-byte planes) and 9 (not aligned) nothing" sh -c "'$T' examples/bench/cfd8.teil --stream -o '$work/e1.c' && grep -q 'teil_stream(__builtin_assume_aligned(&v\\[512\\*i1 + 64\\*i2 + 8\\*i3 + i4\\], 64), &v_r\\[8\\*i3 + i4\\], 64);' '$work/e1.c' && ! grep -q 'v_s' '$work/e1.c' && '$T' examples/bench/cfd12.teil --stream -o '$work/e2.c' && grep -q 'double v_s\\[144\\];' '$work/e2.c' && grep -q 'teil_stream(__builtin_assume_aligned(&v\\[1728\\*i1 + 144\\*i2 + 12\\*s3 + s4\\], 64), &v_s\\[12\\*s3 + s4\\], 144);' '$work/e2.c' && for k in cfd4 cfd9; do ! '$T' examples/bench/\$k.teil --stream | grep -q teil_stream || exit 1; done"
check "R-CG-26: coars' rows of 32 KiB are streamed in chunks of 4 KiB" sh -c "'$T' examples/bench/coars.teil --stream --dump=sched >'$work/s5' && grep -Eq '^  for s0 in \\[0, 4096\\) step 512 [{]' '$work/s5' && grep -q 'local R_s : \\[1, 512\\]' '$work/s5' && grep -q 'stream aligned { R\\[i1, s0 + s2\\] = R_s\\[0, s2\\] }' '$work/s5'"
check "R-CG-26: by default only outputs of kernels whose parameters together are larger than 16 x the L2 cache stream (sddmm's 134 MB), and --no-stream never" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; '$T' examples/bench/sddmm.teil -o '$work/s2.c' && if [ \$((16 * l2)) -lt 134217728 ]; then grep -q 'teil_stream(__builtin_assume_aligned(&A' '$work/s2.c'; else ! grep -q teil_stream '$work/s2.c'; fi && ! '$T' tests/compile/progs/stream_bmm.teil | grep -q teil_stream && ! '$T' examples/bench/sddmm.teil --no-stream | grep -q teil_stream"
check "R-CG-26 (2): bmm b x 48 x 48 x 48 streams its output by default when A, B and C together exceed 16 x the L2 cache (b = 16 L2 / 55296 + 10, the output alone a third of that), not with b 20 smaller; the first agrees with the interpreter" sh -c "l2=\$TEIL_L2_BYTES; [ \"\${l2:-0}\" -ge 65536 ] && [ \"\$l2\" -le 67108864 ] || l2=1048576; b=\$((16 * l2 / 55296 + 10)); for n in \$b \$((b - 20)); do printf 'alloc input A : [%d, 48, 48]\\nalloc input B : [%d, 48, 48]\\nalloc output C : [%d, 48, 48]\\nC = contr 3 4 (diag 1 4 (prod A B))\\n' \$n \$n \$n >\"$work/fp\$n.teil\" || exit 1; done && '$T' \"$work/fp\$b.teil\" -o - | grep -q 'teil_stream(' && ! '$T' \"$work/fp\$((b - 20)).teil\" -o - | grep -q 'teil_stream(' && '$BIN/teil-check' --diff \"$work/fp\$b.teil\" --trials 1"
check "R-CG-26: a parallel loop that streams is a parallel region whose threads fence (and the kernel fences); the file builds warning-free" sh -c "'$T' examples/bench/bmm.teil --stream -o '$work/s3.c' && grep -A2 '#pragma omp parallel\$' '$work/s3.c' | grep -q '#pragma omp for\$' && test \$(grep -c 'teil_stream_fence();' '$work/s3.c') -eq 2 && $CC $CFLAGS -c '$work/s3.c' -o '$work/s3.o' && '$T' examples/bench/bmm.teil --stream --no-openmp | grep -c 'teil_stream_fence();' | grep -qx 1"
printf '#!/bin/sh\nexec %s -march=x86-64-v3 -mno-avx512f "$@"\n' "$CC" >"$work/avx2cc"
chmod +x "$work/avx2cc"
if $CC -march=x86-64-v3 -mno-avx512f -E -x c /dev/null >/dev/null 2>&1; then
  check "R-CG-26: the AVX path of teil_stream agrees with the interpreter (stream_bmm, stream_blocks, stream_elem8)" sh -c "for p in stream_bmm stream_blocks stream_elem8; do CC='$work/avx2cc' '$BIN/teil-check' --diff tests/compile/progs/\$p.teil --stream --trials 2 || exit 1; done"
fi
check "R-CG-26: with --acsl the non-temporal stores are hidden from Frama-C and teil_stream has its contract" sh -c "'$T' examples/bench/bmm.teil --stream --acsl -o '$work/s4.c' && grep -q '^#if (defined(__x86_64__) || defined(__i386__)) && defined(__SSE2__) && !defined(__FRAMAC__)\$' '$work/s4.c' && grep -B6 '^static void teil_stream(' '$work/s4.c' | grep -q 'assigns dst\\[0 .. n-1\\];' && $CC $CFLAGS -c '$work/s4.c' -o '$work/s4.o'"

check "-H header compiles with a caller" sh -c "'$T' '$mm' --pad 8 -o '$work/mm.c' -H '$work/mm.h' && $CC $CFLAGS -I'$work' '$work/user.c' '$work/mm.c' -o '$work/user' -lm && '$work/user'"

# R-CG-14: the driver
c=tests/run/teil_inplace_matpow
check "driver: build" sh -c "'$T' $c/prog.teil --main --pad 4 -o '$work/d.c' && $CC $CFLAGS '$work/d.c' -o '$work/d' -lm"
check "driver: --repeat restores inputs and prints the time last" sh -c "'$work/d' --in A=$c/in/A.npy --out A='$work/A.npy' --repeat 5 | tail -1 | grep -Eq '^time_ms median=[0-9.]+ min=[0-9.]+ runs=5\$' && '$BIN/npycmp' $c/expect/A.npy '$work/A.npy'"
check "driver: a missing input is an error" status 2 "$work/d" --out A="$work/A.npy"
check "driver: a wrong shape is an error" sh -c "'$work/d' --in A=tests/run/teil_trace/in/A.npy 2>&1 >/dev/null | grep -q 'has shape'; test \$? -eq 0"
check "driver: an unknown tensor is an error" status 2 "$work/d" --in A=$c/in/A.npy --out Z="$work/Z.npy"
check "driver: --help" status 0 "$work/d" --help
check "driver: errors are one line" sh -c "'$work/d' 2>&1 | wc -l | grep -qx 1"

# R-CG-16: --diff exit statuses
check "--diff: ill-typed program is status 2" status 2 "$BIN/teil-check" --diff "$bad"
check "--diff: no program is status 2" status 2 "$BIN/teil-check" --diff
check "--diff: a failing compiler is status 2" sh -c "CC=false '$BIN/teil-check' --diff '$mm' >/dev/null 2>&1; test \$? -eq 2"
# A "compiler" that breaks the kernel (sums become differences) must be caught.
cat >"$work/badcc" <<EOF
#!/bin/sh
for a; do case \$a in *.c) sed -i 's/\] += /] -= /' "\$a";; esac; done
exec $CC "\$@"
EOF
chmod +x "$work/badcc"
check "--diff: a wrong kernel is status 1 with the first mismatch" sh -c "CC='$work/badcc' '$BIN/teil-check' --diff '$mm' >'$work/bad.out' 2>&1; test \$? -eq 1 && grep -q 'mismatch in trial 1' '$work/bad.out'"

grep -av '^ok ' "$results"
pass=$(grep -c '^ok ' "$results")
fail=$(grep -c '^FAIL ' "$results")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
