#!/bin/sh
# Tests of schedules: TeML loop transformations with legality checks
# (spec/schedule.md, rules R-SCH-n; R-SCH-19 describes this suite).
#
#   tests/sched/run.sh [BIN_DIR]          (default: build/bin)
#
# 1. Examples: every examples/*.sched and examples/teml/*.sched (the
#    program of the same base name), and tests/regress/sched-*.sched, pass
#    `teil-check --diff --schedule` (R-SCH-18) with --pad 1 and --pad 4; the
#    programs also pass with the default schedule (R-SCH-17) and without it.
# 2. Illegal schedules: every tests/sched/illegal/*.sched is refused by teilc
#    with status 1 and a one-line error containing its "# expect:" text; its
#    program is named on its "# prog:" line (R-SCH-14).
# 3. Malformed schedule files (R-SCH-1, R-SCH-3): one-line FILE:LINE:COL
#    errors, status 1 (2 for I/O), never a crash; and the command line.
# 4. Random: $SCHED_RANDOM programs (default 100; seeds from $SCHED_SEED,
#    default 1): odd seeds from tests/sched/fusegen.awk (same-shaped tensors,
#    so nests fuse), even seeds from build/bin/teilgen if it exists. A program
#    teilc refuses without a schedule (status 1) is skipped; any other non-zero
#    status (a crash) is a failure. Random
#    steps (tests/sched/randsched.awk) are tried one at a time; a step teilc
#    refuses (status 1, one-line error) is dropped, any other status is a
#    failure. The accepted schedule must pass teil-check --diff and, for
#    teilgen programs, give the same bits as --no-schedule (R-SCH-13). A failure
#    is shrunk by hand and kept as tests/regress/sched-NAME.teil + .sched.
#
# teilc runs under ASan+UBSan when build/san/bin/teilc exists and is not
# older than BIN's teilc (in part 4 without the leak check for each step tried,
# with it for the run without a schedule and for the accepted one). Jobs run in
# parallel ($JOBS, default: the number of CPUs). The last line is exactly
# "N passed, M failed"; the exit status is 0 iff nothing failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
[ "${TSCHED_JOB:-}" = 1 ] || BIN=${1:-build/bin}
TC=$BIN/teilc
# the sanitizer build, unless it is older than BIN's (then it is stale)
[ -x build/san/bin/teilc ] && [ "${SCHED_NO_SAN:-}" != 1 ] && [ ! "$BIN/teilc" -nt build/san/bin/teilc ] && TC=build/san/bin/teilc
export BIN TC

# ---------------------------------------------------------------- one job
if [ "${TSCHED_JOB:-}" = 1 ]; then
  kind=$1 a=$2 b=$3 work=$4
  dir=$(mktemp -d "$work/job.XXXXXX") || { echo "FAIL $kind $a: mktemp"; exit 0; }
  name="$kind $a $b"
  fail() { echo "FAIL $name: $1"; [ -f "$dir/log" ] && sed 's/^/    /' "$dir/log" | head -12; exit 0; }
  case $kind in
    diff)                                    # a = program, b = schedule or "default" / "none"
      for pad in 1 4; do
        case $b in
          default) s= ;;
          none) s=--no-schedule ;;
          *) s="--schedule $b" ;;
        esac
        # shellcheck disable=SC2086
        TMPDIR=$dir "$BIN/teil-check" --diff "$a" $s --pad $pad --trials 2 >"$dir/log" 2>&1 || fail "teil-check --diff --pad $pad"
      done
      ;;
    illegal)                                 # a = schedule
      prog=$(sed -n 's/^# prog: //p' "$a" | head -1)
      want=$(sed -n 's/^# expect: //p' "$a" | head -1)
      [ -n "$prog" ] && [ -n "$want" ] || fail "no '# prog:' or '# expect:' line"
      "$TC" "$prog" --schedule "$a" -o "$dir/k.c" >"$dir/out" 2>"$dir/log"
      st=$?
      [ $st -eq 1 ] || fail "status $st, expected 1"
      [ "$(grep -c "^$a:" "$dir/log")" -eq 1 ] || fail "not exactly one error line"
      grep -q "^$a:[0-9]*:[0-9]*: error: " "$dir/log" || fail "not a FILE:LINE:COL: error: line"
      grep -qF -- "$want" "$dir/log" || fail "the error does not contain: $want"
      ;;
    random)                                  # a = seed
      seed=$a
      mkdir -p "$dir/g"
      mode=
      if [ $((seed % 2)) = 1 ] || [ ! -x "$BIN/teilgen" ]; then
        awk -v seed="$seed" -f tests/sched/fusegen.awk >"$dir/g/prog.teil"
        mode=fuse
      else
        "$BIN/teilgen" --seed "$seed" --out "$dir/g" --stmts $((2 + seed % 4)) >/dev/null 2>&1 || fail "teilgen"
      fi
      prog=$dir/g/prog.teil
      flags=
      [ $((seed % 5)) = 0 ] && flags="--no-lift"
      [ $((seed % 3)) = 0 ] && flags="$flags --pad 3"
      # shellcheck disable=SC2086
      "$TC" "$prog" $flags --dump=pad -o /dev/null >"$dir/dump" 2>"$dir/log"
      st=$?
      if [ $st -ne 0 ]; then
        # a refusal (status 1) is not a schedule problem: reported, not counted; a crash fails
        [ $st -eq 1 ] || fail "teilc without a schedule: status $st"
        echo "skip $name: teilc fails without a schedule: $(grep -v '^ \|^note:\|: warning: ' "$dir/log" | head -1)"
        rm -rf "$dir"
        exit 0
      fi
      # targets (R-SCH-2): the statements' notes and the nested-sum temporaries
      targets=$(sed -n -e 's/^# line [0-9]*: \([A-Za-z_][A-Za-z0-9_]*\) = .*/\1/p' \
                       -e 's/^# \(t[0-9][0-9]*_*\) = .*temporary for a nested sum.*/\1/p' "$dir/dump" |
                awk '{c[$1]++; print (c[$1] > 1 ? $1 "#" c[$1] : $1)}' | tr '\n' ' ')
      : >"$dir/s.sched"
      k=0
      while [ $k -lt 14 ]; do
        line=$(awk -v seed=$((seed * 100 + k)) -v targets="$targets" -v mode="$mode" -f tests/sched/randsched.awk)
        k=$((k + 1))
        [ -n "$line" ] || break
        cp "$dir/s.sched" "$dir/c.sched"
        echo "$line" >>"$dir/c.sched"
        # each step without the leak check, which the accepted schedule gets below (R-SCH-19)
        # shellcheck disable=SC2086
        ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
          "$TC" "$prog" $flags --schedule "$dir/c.sched" -o /dev/null >/dev/null 2>"$dir/log"
        st=$?
        if [ $st -eq 0 ]; then
          cp "$dir/c.sched" "$dir/s.sched"
        elif [ $st -eq 1 ]; then
          [ "$(grep -c "c.sched:" "$dir/log")" -eq 1 ] && grep -q "c.sched:[0-9]*:[0-9]*: error: " "$dir/log" ||
            { cp "$prog" "$dir/log.teil"; fail "refused '$line' without a one-line error (kept in $dir)"; }
        else
          cp "$dir/c.sched" "$work/failed-$seed.sched"; cp "$prog" "$work/failed-$seed.teil"
          fail "teilc exited with status $st on '$line'"
        fi
      done
      # the accepted schedule with the leak check (under ASan)
      if [ -s "$dir/s.sched" ]; then
        # shellcheck disable=SC2086
        "$TC" "$prog" $flags --schedule "$dir/s.sched" -o /dev/null >/dev/null 2>"$dir/log" ||
          fail "teilc exited with status $? on the accepted schedule"
      fi
      # shellcheck disable=SC2086
      if ! TMPDIR=$dir "$BIN/teil-check" --diff "$prog" $flags --schedule "$dir/s.sched" --trials 2 >"$dir/log" 2>&1; then
        mkdir -p "$work/failed"; cp "$prog" "$work/failed/sched-$seed.teil"; cp "$dir/s.sched" "$work/failed/sched-$seed.sched"
        cat "$dir/s.sched" >>"$dir/log"
        fail "teil-check --diff $flags with the accepted schedule"
      fi
      # R-SCH-13: the same bits as the unscheduled code (teilgen writes inputs)
      if [ -d "$dir/g/in" ] && [ -s "$dir/s.sched" ]; then
        set --
        for f in "$dir"/g/in/*.npy; do [ -f "$f" ] && set -- "$@" --in "$(basename "$f" .npy)=$f"; done
        for t in $(sed -n 's/^alloc \(input \)\{0,1\}output \([A-Za-z_][A-Za-z0-9_]*\) :.*/\2/p' "$prog"); do
          set -- "$@" --out "$t=$dir/OUT_$t.npy"
        done
        for v in a b; do
          sch=--no-schedule
          [ $v = b ] && sch="--schedule $dir/s.sched"
          # shellcheck disable=SC2086
          "$BIN/teilc" "$prog" $flags $sch --main -o "$dir/$v.c" >"$dir/log" 2>&1 || fail "teilc --main ($v)"
          ${CC:-gcc} -O2 -fopenmp "$dir/$v.c" -o "$dir/$v" -lm >"$dir/log" 2>&1 || fail "cc ($v)"
          mkdir -p "$dir/$v.out"
          (cd "$dir/$v.out" && "$dir/$v" "$@") >"$dir/log" 2>&1 || fail "kernel ($v)"
          for f in "$dir"/OUT_*.npy; do [ -f "$f" ] && mv "$f" "$dir/$v.out/"; done
        done
        for f in "$dir"/a.out/OUT_*.npy; do
          [ -f "$f" ] || continue
          "$BIN/npycmp" "$f" "$dir/b.out/$(basename "$f")" --rtol 0 --atol 0 >"$dir/log" 2>&1 ||
            { cat "$dir/s.sched" >>"$dir/log"; fail "the schedule changed bits of $(basename "$f" .npy | sed 's/^OUT_//')"; }
        done
      fi
      name="$name ($(wc -l <"$dir/s.sched") steps)"
      ;;
  esac
  echo "ok $name"
  rm -rf "$dir"
  exit 0
fi

# ---------------------------------------------------------------- the job list
for t in teilc teil-check; do
  [ -x "$BIN/$t" ] || { echo "tests/sched/run.sh: $BIN/$t is missing; run make first" >&2; echo "0 passed, 1 failed"; exit 1; }
done
work=$(mktemp -d "${TMPDIR:-/tmp}/sched-tests.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT INT TERM
jobs=$work/jobs
: >"$jobs"
for s in examples/*.sched examples/teml/*.sched tests/regress/sched-*.sched; do
  [ -f "$s" ] || continue
  base=${s%.sched}
  prog=
  for ext in teil tm; do [ -f "$base.$ext" ] && prog=$base.$ext; done
  [ -n "$prog" ] || { echo "diff $s missing-program $work" >>"$jobs"; continue; }
  echo "diff $prog $s $work" >>"$jobs"
done
for p in examples/teml/*.teil; do
  echo "diff $p default $work" >>"$jobs"
  echo "diff $p none $work" >>"$jobs"
done
for s in tests/sched/illegal/*.sched; do echo "illegal $s - $work" >>"$jobs"; done
n=${SCHED_RANDOM:-100}
s0=${SCHED_SEED:-1}
i=0
while [ $i -lt "$n" ]; do echo "random $((s0 + i)) - $work" >>"$jobs"; i=$((i + 1)); done
results=$work/results
TSCHED_JOB=1 xargs -r -P "${JOBS:-$(nproc 2>/dev/null || echo 2)}" -n 4 sh "$0" <"$jobs" >"$results" 2>&1

# ---------------------------------------------------------------- malformed files, command line
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
mm=examples/mm.teil
# malformed: STATUS<tab>EXPECTED-SUBSTRING<tab>FILE CONTENT (printf %b escapes)
cat >"$work/malformed" <<'EOF'
1	m.sched:1:3: error: expected ':' after the target	C interchange 1 2
1	m.sched:1:4: error: unknown primitive 'frob'	C: frob 1
1	m.sched:1:17: error: too few arguments (usage: interchange LEVEL1 LEVEL2)	C: interchange 1
1	m.sched:1:20: error: too many arguments	C: interchange 1 2 3
1	m.sched:1:16: error: a factor must be at least 2, not 1	C: stripmine 1 1
1	m.sched:1:14: error: levels count from 1	C: stripmine 0 2
1	m.sched:1:14: error: expected a number, found 'x'	C: stripmine x 2
1	m.sched:1:1: error: expected a target	3: parallelize 1
1	m.sched:1:3: error: occurrences count from 1	C#0: parallelize 1
1	m.sched:1:3: error: expected an occurrence number after '#'	C#: parallelize 1
1	m.sched:1:1: error: unknown target 'Z'	Z: parallelize 1
1	m.sched:1:1: error: 'C#2': C is assigned only 1 time	C#2: parallelize 1
1	m.sched:2:16: error: level 9 is out of range	# a comment\nC: parallelize 9
1	m.sched:1:16: error: number too large	C: parallelize 99999999999
1	m.sched:1:17: error: unexpected '#x' after a number	C: parallelize 1#x
1	m.sched:1:3: error: expected a primitive after ':'	C:
1	m.sched:1:15: error: expected the target to fuse with, found '1'	C: fuse_outer 1
1	m.sched:1:15: error: too many arguments (usage: unroll LEVEL [FACTOR])	C: unroll 1 2 3
1	m.sched:1:12: error: too few arguments	C: tile 1 2
1	m.sched:1:2: error: unexpected '$:' after the target name	C$: x
1	m.sched:1:15: error: fuse_inner of level 1 in C: fuse_inner fuses the loops inside level LEVEL-1, so LEVEL must be at least 2	C: fuse_inner 1
1	m.sched:1:18: error: interchange of levels 2 and 2 in C: a level cannot be interchanged with itself	C: interchange 2 2
1	m.sched:1:11: error: tile of levels 1 and 3 in C: tile takes two adjacent levels	C: tile 1 3 2
1	m.sched:3:1: error: expected a target	C: parallelize 1\r\n\t# tab and comment\r\n?: x\r\n
1	m.sched:2:1: error: 	C: unroll 3 2\n\0
1	m.sched:1:4: error: fuse_outer of C and C at level 1: a nest cannot be fused with itself	C: fuse_outer C 1
0	-	\n  # only comments and blank lines\n\n
0	-	C: parallelize 1   # a trailing comment\r\nC: vectorize 3\t\n
EOF
i=0
while IFS='	' read -r want sub content; do
  i=$((i + 1))
  printf '%b' "$content" >"$work/m.sched"
  (cd "$work" && "$OLDPWD/$TC" "$OLDPWD/$mm" --schedule m.sched -o /dev/null >/dev/null 2>err)
  st=$?
  if [ "$st" -ne "$want" ]; then
    echo "FAIL malformed $i ($content): status $st, expected $want" >>"$results"; sed 's/^/    /' "$work/err" >>"$results"
  elif [ "$want" -eq 1 ] && { [ "$(wc -l <"$work/err")" -ne 1 ] || ! grep -qF -- "$sub" "$work/err"; }; then
    echo "FAIL malformed $i ($content): expected one line with '$sub'" >>"$results"; sed 's/^/    /' "$work/err" >>"$results"
  else
    echo "ok malformed $i" >>"$results"
  fi
done <"$work/malformed"

T=$TC
status() { # expected-status command...
  want=$1
  shift
  "$@" >"$work/out" 2>"$work/err"
  got=$?
  [ "$got" -eq "$want" ] || { echo "exit status $got, expected $want: $*"; cat "$work/err"; return 1; }
}
check "missing schedule file: status 2" status 2 "$T" "$mm" --schedule "$work/none.sched"
check "--schedule without a file: status 2" status 2 "$T" "$mm" --schedule
check "--schedule with --no-schedule: status 2" status 2 "$T" "$mm" --schedule examples/mm.sched --no-schedule
check "a schedule error is status 1 on one line" sh -c "'$T' '$mm' --schedule tests/sched/illegal/parallel_reduction.sched -o '$work/x.c' 2>'$work/e'; test \$? -eq 1 && test \$(wc -l <'$work/e') -eq 1"
check "--diff: a refused schedule is status 2" status 2 "$BIN/teil-check" --diff "$mm" --schedule tests/sched/illegal/parallel_reduction.sched
check "--diff: a missing schedule is status 2" status 2 "$BIN/teil-check" --diff "$mm" --schedule "$work/none.sched"
check "--dump=sched shows the transformed nest" sh -c "'$T' '$mm' --schedule examples/mm.sched --dump=sched | grep -q 'for r1 in \[r1t, r1t + 2) reduction'"
check "--dump=sched marks parallel and simd" sh -c "'$T' '$mm' --schedule examples/mm.sched --dump=sched | grep -q 'parallel {' && '$T' '$mm' --schedule examples/mm.sched --dump=sched | grep -q 'simd {'"
check "--dump=sched without a schedule (the default)" sh -c "'$T' examples/cfd_interp.teil --dump=sched | grep -q ' parallel {'"
check "R-CG-19: partial blocks are split from the full ones and build warning-free" sh -c "'$T' examples/matmul.tm --schedule examples/matmul.sched --dump=sched | grep -q 'for i2t in \\[48, 50) step 16' && '$T' examples/matmul.tm --schedule examples/matmul.sched --main -o '$work/mm.c' && ! grep -q 'teil_min(' '$work/mm.c' && ${CC:-gcc} -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Werror '$work/mm.c' -o '$work/mm' -lm"
printf 'C: stripmine 1 16\nC: parallelize 1\n' >"$work/par.sched"
check "R-CG-19: a parallel loop of fewer than 4 full blocks keeps teil_min and builds warning-free" sh -c "'$T' examples/matmul.tm --schedule '$work/par.sched' --main -o '$work/mp.c' && grep -q 'teil_min(' '$work/mp.c' && ${CC:-gcc} -std=c11 -O3 -march=native -fopenmp -Wall -Wextra -Werror '$work/mp.c' -o '$work/mp' -lm"
check "--no-openmp: a schedule's marks emit no OpenMP pragma" sh -c "'$T' '$mm' --schedule examples/mm.sched --no-openmp -o '$work/n.c' && ! grep -q 'pragma omp' '$work/n.c'"
check "the default schedule parallelizes a large nest" sh -c "'$T' tests/compile/progs/parallel.teil -o '$work/p.c' && grep -q 'pragma omp parallel for' '$work/p.c'"
check "--no-schedule keeps the canonical nests" sh -c "'$T' '$mm' --no-schedule --dump=sched | grep -q 'for r1 in \[0, 4) reduction'"
# R-SCH-17: --dump=schedule prints the default as a schedule file that gives the same C
for k in examples/bench/*.teil examples/*.teil examples/*.tm tests/compile/progs/*.teil; do
  [ -f "$k" ] || continue
  b=$(basename "$k")
  check "--dump=schedule reproduces the default ($b)" sh -c "'$T' '$k' --dump=schedule >'$work/d.sched' && grep -q '^# .*the default schedule' '$work/d.sched' && '$T' '$k' --schedule '$work/d.sched' -o '$work/d1.c' && '$T' '$k' -o '$work/d2.c' && sed 1,3d '$work/d1.c' >'$work/d1s' && sed 1,3d '$work/d2.c' >'$work/d2s' && cmp -s '$work/d1s' '$work/d2s'"
done
c=tests/run/teil_inplace_matpow
printf 'A: unroll 2\nA#2: interchange 2 3\nA#2: stripmine 3 2\nA#2: unroll 2\n' >"$work/pow.sched"
check "scheduled sums are bit-identical to unscheduled ones (R-SCH-13)" sh -c "'$T' $c/prog.teil --no-schedule --main -o '$work/a.c' && '$T' $c/prog.teil --schedule '$work/pow.sched' --main -o '$work/b.c' && ${CC:-gcc} -O2 '$work/a.c' -o '$work/a' -lm && ${CC:-gcc} -O2 '$work/b.c' -o '$work/b' -lm && '$work/a' --in A=$c/in/A.npy --out A='$work/a.npy' && '$work/b' --in A=$c/in/A.npy --out A='$work/b.npy' && cmp '$work/a.npy' '$work/b.npy'"

grep -av '^ok ' "$results"
[ -d "$work/failed" ] && echo "failing random cases copied to $work/failed (kept: see below)" && cp -r "$work/failed" "${TMPDIR:-/tmp}/sched-failed.$$" && echo "  ${TMPDIR:-/tmp}/sched-failed.$$"
pass=$(grep -c '^ok ' "$results")
fail=$(grep -c '^FAIL ' "$results")
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
