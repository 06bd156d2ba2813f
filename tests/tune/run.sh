#!/bin/sh
# Tests of the autotuner teilc --tune (spec/tune.md; R-TUNE-9 describes this
# suite).
#
#   tests/tune/run.sh [BIN_DIR]          (default: build/bin)
#
# Runs with TEIL_CACHE_DIR in a fresh temporary directory and budgets of a
# few seconds on tests/tune/mm.teil. The last line is exactly
# "N passed, M failed"; the exit status is 0 iff nothing failed.
set -u
cd "$(dirname "$0")/../.." || exit 2
BIN=${1:-build/bin}
TC=$BIN/teilc
CHK=$BIN/teil-check
W=$(mktemp -d) || exit 2
trap 'rm -rf "$W"' EXIT
export TEIL_CACHE_DIR="$W/cache"
P=tests/tune/mm.teil
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; [ -n "${2:-}" ] && [ -f "$2" ] && sed 's/^/     /' "$2" | head -20; }
check() { # name condition-command... (stderr of the tested step in $W/err)
  name=$1; shift
  if "$@"; then ok "$name"; else bad "$name" "$W/err"; fi
}
ms() { date +%s%N | cut -c1-13; }
lines() { [ "$(wc -l <"$1")" -eq "$2" ]; }
entries() { ls "$TEIL_CACHE_DIR"/*.sched 2>/dev/null | wc -l; }

# ---- R-TUNE-1..6: the first --tune searches, writes the schedule and the entry
t0=$(ms)
"$TC" $P --tune --tune-seconds 8 --tune-out "$W/best.sched" -o "$W/tuned.c" 2>"$W/err"
st=$?
cp "$W/err" "$W/tune1.err"
t1=$(ms)
check "first --tune exits 0" [ $st -eq 0 ]
check "first --tune searched (R-TUNE-5 summary line)" grep -q "^tune $P: default .* ms, best .* ms" "$W/err"
check "first --tune kept to its budget (8 s + slack)" [ $((t1 - t0)) -lt 25000 ]
check "the schedule file was written (R-TUNE-1)" [ -s "$W/best.sched" ]
check "one cache entry appeared (R-TUNE-6)" [ "$(entries)" -eq 1 ]
E=$(ls "$TEIL_CACHE_DIR"/*.sched 2>/dev/null | head -1)
check "the entry names key, machine, default-steps, default and best" \
  sh -c "grep -q '^# key: [0-9a-f]\{16\}$' '$E' && grep -q '^# machine: ' '$E' && grep -q '^# default-steps: ' '$E' && grep -q '^# default: ' '$E' && grep -q '^# best: ' '$E'"
check "the entry equals the --tune-out file" cmp -s "$E" "$W/best.sched"
"$TC" $P --schedule "$W/best.sched" -o "$W/sched.c" 2>"$W/err"
check "teilc --schedule accepts the tuned schedule" [ $? -eq 0 ]
check "--tune's C equals the C of --schedule with it" cmp -s "$W/tuned.c" "$W/sched.c"
"$CHK" --diff $P --schedule "$W/best.sched" >"$W/err" 2>&1
check "teil-check --diff --schedule passes with the tuned schedule" [ $? -eq 0 ]
check "the tuned schedule is never slower than the default as measured (R-TUNE-4)" \
  awk '/^# default: /{d=$3} /^# best: /{b=$3} END{exit !(b <= d)}' "$E"
check "a kept schedule beat the default by the noise margin, else the default was kept (R-TUNE-4)" \
  awk '/^# default: /{d=$3} /^# best: /{b=$3} END{exit !(b == d || b <= 0.9701 * d)}' "$E"
check "a search whose best is not the default ends with that best kept or a line saying why the default is kept (R-TUNE-4)" \
  sh -c "r=\$(grep '^tune $P: \\[' '$W/tune1.err' | tail -2 | head -1 | sed -n 's/.* best [0-9.e+-]* ms (\\([0-9.]*\\)x default).*/\\1/p'); [ \"\$r\" = 1.00 ] || grep -q 'keeping the default' '$W/tune1.err' || awk '/^# default: /{d=\$3} /^# best: /{b=\$3} END{exit !(b < d)}' '$E'"

# ---- R-TUNE-1: the second --tune uses the cache
t0=$(ms)
"$TC" $P --tune --tune-seconds 8 -o "$W/tuned2.c" 2>"$W/err"
st=$?
t1=$(ms)
check "second --tune exits 0" [ $st -eq 0 ]
check "second --tune says it used the cache" grep -q "from the cache; no search" "$W/err"
check "second --tune does not search" sh -c "! grep -q '^tune ' '$W/err'"
check "second --tune is fast (< 1.5 s)" [ $((t1 - t0)) -lt 1500 ]
check "second --tune gives the same C" cmp -s "$W/tuned.c" "$W/tuned2.c"
check "second --tune prints the entry's path" grep -q "tuned schedule: $E" "$W/err"

# ---- R-TUNE-7: plain compilations use the entry, --no-tune-cache does not
"$TC" $P -o "$W/plain.c" 2>"$W/err"
check "a plain compilation exits 0" [ $? -eq 0 ]
check "a plain compilation says it uses the tuned schedule" grep -q "using the tuned schedule $E (R-TUNE-7)" "$W/err"
check "a plain compilation prints one line" lines "$W/err" 1
check "a plain compilation compiles with the tuned schedule" cmp -s "$W/plain.c" "$W/sched.c"
"$TC" $P --no-tune-cache -o "$W/nocache.c" 2>"$W/err"
check "--no-tune-cache exits 0 and says nothing" sh -c "[ $? -eq 0 ] && [ ! -s '$W/err' ]"
TEIL_CACHE_DIR="$W/empty" "$TC" $P -o "$W/default.c" 2>"$W/err"
check "without an entry nothing is printed" [ ! -s "$W/err" ]
check "--no-tune-cache compiles with the default schedule" cmp -s "$W/nocache.c" "$W/default.c"
"$TC" $P --schedule "$W/best.sched" -o /dev/null 2>"$W/err"
check "--schedule does not look at the cache" [ ! -s "$W/err" ]
"$TC" $P --emit-teil -o /dev/null 2>"$W/err"
check "--emit-teil does not look at the cache" [ ! -s "$W/err" ]

# ---- R-TUNE-6: corrupted, stale and foreign entries are ignored with one warning
cp "$E" "$W/saved.sched"
printf 'C: tile 1 2 ???\n\001\002 garbage\n' >"$E"
"$TC" $P -o "$W/corrupt.c" 2>"$W/err"
check "a corrupted entry: exit 0" [ $? -eq 0 ]
check "a corrupted entry: one warning line" sh -c "lines() { [ \$(wc -l <\"\$1\") -eq \$2 ]; }; lines '$W/err' 1 && grep -q 'warning: ignoring cache entry' '$W/err'"
check "a corrupted entry: the default schedule is used" cmp -s "$W/corrupt.c" "$W/default.c"
head -c 3000 /dev/urandom >"$E"
"$TC" $P -o /dev/null 2>"$W/err"
check "a binary entry: exit 0, one warning line" sh -c "[ $? -eq 0 ] && [ \$(wc -l <'$W/err') -eq 1 ] && grep -q warning '$W/err'"
sed 's/^# default-steps: .*/# default-steps: 0000000000000000/' "$W/saved.sched" >"$E"
"$TC" $P -o /dev/null 2>"$W/err"
check "a stale entry (default changed): warned and not used" grep -q "stale" "$W/err"
sed 's/^# machine: .*/# machine: another machine/' "$W/saved.sched" >"$E"
"$TC" $P -o /dev/null 2>"$W/err"
check "an entry for another machine: warned and not used" grep -q "another machine" "$W/err"
sed 's/^\(C: .*\)$/\1 999/' "$W/saved.sched" >"$W/refused.sched"
grep -q '^C: ' "$W/refused.sched" || printf 'C: interchange 1 9\n' >>"$W/refused.sched"
cp "$W/refused.sched" "$E"
"$TC" $P -o "$W/refused.c" 2>"$W/err"
check "an entry whose schedule is refused: exit 0" [ $? -eq 0 ]
check "an entry whose schedule is refused: warned, default used" \
  sh -c "grep -q warning '$W/err' && cmp -s '$W/refused.c' '$W/default.c'"
printf 'garbage\n' >"$E"
"$TC" $P --tune --tune-seconds 2 -o /dev/null 2>"$W/err"
check "--tune over a corrupted entry warns and searches again" \
  sh -c "[ $? -eq 0 ] && grep -q 'warning: ignoring cache entry' '$W/err' && grep -q '^tune ' '$W/err' && grep -q '^# key: ' '$E'"
chmod 000 "$E"
"$TC" $P -o /dev/null 2>"$W/err"
check "an unreadable entry: exit 0, no crash" [ $? -eq 0 ]
chmod 644 "$E"

# ---- R-TUNE-1, R-TUNE-8: bad input gives one line and status 2
for v in 0 -1 abc "" 1e9 nan inf 5x; do
  "$TC" $P --tune --tune-seconds "$v" -o /dev/null 2>"$W/err"
  check "--tune-seconds '$v': status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ]"
done
"$TC" $P --tune --tune-seconds 2>"$W/err"
check "--tune-seconds without a value: status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ]"
for opts in "--tune --schedule $W/best.sched" "--tune --no-schedule" "--tune --no-tune-cache" "--tune --emit-teil" \
  "--tune --dump=sched" "--tune-seconds 3" "--tune-out $W/x.sched"; do
  "$TC" $P $opts -o /dev/null 2>"$W/err"
  check "'$opts': status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ]"
done
: >"$W/afile"
TEIL_CACHE_DIR="$W/afile/sub" "$TC" $P --tune --tune-seconds 2 -o /dev/null 2>"$W/err"
check "an unusable cache directory: status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ]"
TEIL_CACHE_DIR="$W/cc-missing" CC=/nonexistent/cc "$TC" $P --tune --tune-seconds 2 -o /dev/null 2>"$W/err"
check "a missing C compiler: status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ] && grep -q 'C compiler' '$W/err'"
# a C compiler that builds the default (candidate 0) and then can no longer be run
printf '#!/bin/sh\ncase "$1" in --version) exec %s "$@";; esac\nn=$(cat "%s/cc-count" 2>/dev/null || echo 0)\necho $((n + 1)) >"%s/cc-count"\n[ "$n" -eq 0 ] || exit 127\nexec %s "$@"\n' \
  "${CC:-cc}" "$W" "$W" "${CC:-cc}" >"$W/cc-once"
chmod +x "$W/cc-once"
TEIL_CACHE_DIR="$W/cc-once-cache" CC="$W/cc-once" "$TC" $P --tune --tune-seconds 4 -o /dev/null 2>"$W/err"
check "R-TUNE-8: a C compiler that can no longer be run after candidate 0: status 2, the last line says so, no cache entry" \
  sh -c "[ $? -eq 2 ] && [ \$(cat '$W/cc-count') -ge 2 ] && tail -n 1 '$W/err' | grep -q 'cannot be run' && [ ! -e '$W/cc-once-cache' -o -z \"\$(ls '$W/cc-once-cache')\" ]"
env -u TEIL_CACHE_DIR -u XDG_CACHE_HOME -u HOME "$TC" $P --tune --tune-seconds 2 -o /dev/null 2>"$W/err"
check "no cache directory at all: status 2, one line" sh -c "[ $? -eq 2 ] && [ \$(wc -l <'$W/err') -eq 1 ]"
env -u TEIL_CACHE_DIR -u XDG_CACHE_HOME -u HOME "$TC" $P -o /dev/null 2>"$W/err"
check "no cache directory, plain compilation: exit 0, silent" sh -c "[ $? -eq 0 ] && [ ! -s '$W/err' ]"
printf 'alloc input A : [2, 3]\nalloc output C : [2, 2]\nC = contr 2 3 (prod A A)\n' >"$W/badprog.teil"
"$TC" "$W/badprog.teil" --tune --tune-seconds 2 -o /dev/null 2>"$W/err"
check "a program with errors: status 1" [ $? -eq 1 ]

# ---- R-TUNE-2: candidate 1, the default of the other choice of lanes (R-SCH-27)
printf 'alloc input A : [9, 9]\nalloc input u : [64, 9, 9, 9]\nalloc output v : [64, 9, 9, 9]\nv = contr 2 6 (contr 2 6 (contr 2 6 (prod u (prod A (prod A A)))))\n' >"$W/cfd9.teil"
"$TC" "$W/cfd9.teil" --tune --tune-seconds 6 -o "$W/cfd9.c" 2>"$W/err"
check "R-SCH-27's form (n = 9): candidate 1 is the default with the other choice of lanes, and it is measured" \
  sh -c "[ $? -eq 0 ] && grep -q 'candidate 1 is the default schedule with\(out\)\? lanes (R-SCH-27)' '$W/err' && n=\$(sed -n 's/^tune .*: default .*, \([0-9]*\) measured.*/\1/p' '$W/err') && [ \"\${n:-0}\" -ge 2 ]"
check "mm, not of that form, has no candidate 1 of lanes" sh -c "! grep -q 'candidate 1 is the default' '$W/tune1.err'"
"$TC" examples/mttkrp.teil --tune --tune-seconds 4 -o "$W/mttkrp.c" 2>"$W/err"
check "R-SCH-28: mttkrp with 24 rows, inlined by default, has the default without inlining as candidate 1, and it is measured; mm has none" \
  sh -c "[ $? -eq 0 ] && grep -q 'candidate 1 is the default schedule without inlining (--no-inline, R-SCH-28)' '$W/err' && n=\$(sed -n 's/^tune .*: default .*, \([0-9]*\) measured.*/\1/p' '$W/err') && [ \"\${n:-0}\" -ge 2 ] && ! grep -q 'without inlining' '$W/tune1.err'"

# ---- the tuner under ASan+UBSan (make test-build builds build/san/bin)
SAN=${TEIL_SAN_BIN:-build/san/bin}
if [ -x "$SAN/teilc" ]; then
  TEIL_CACHE_DIR="$W/san-cache" "$SAN/teilc" "$W/cfd9.teil" --tune --tune-seconds 5 -o "$W/san.c" 2>"$W/err"
  check "--tune under ASan+UBSan: exit 0, no sanitizer report" sh -c "[ $? -eq 0 ] && ! grep -q 'Sanitizer\|runtime error' '$W/err'"
  # Defaults of no steps (R-TUNE-9): the best starts as an empty list of steps, and
  # its neighbours are built from it; none has no targets (no candidates at all),
  # dots has two targets of the same depth (additions to both, fusion of the two).
  printf 'alloc input a : [3]\nalloc output b : [3]\n' >"$W/none.teil"
  printf 'alloc input a : [3]\nalloc input c : [3]\nalloc output b : []\nalloc output d : []\nb = contr 1 2 (prod a c)\nd = contr 1 2 (prod a a)\n' >"$W/dots.teil"
  for P in none dots; do
    "$TC" "$W/$P.teil" --dump=schedule >"$W/steps" 2>"$W/err"
    check "$P.teil: the default schedule has no steps" sh -c "[ $? -eq 0 ] && ! grep -qv '^#' '$W/steps'"
    TEIL_CACHE_DIR="$W/san-cache" "$SAN/teilc" "$W/$P.teil" --tune --tune-seconds 2 -o "$W/$P.c" 2>"$W/err"
    check "--tune under ASan+UBSan from a default of no steps ($P.teil): exit 0, no sanitizer report" \
      sh -c "[ $? -eq 0 ] && grep -q '^tune .*: default .* measured' '$W/err' && ! grep -q 'Sanitizer\|runtime error' '$W/err'"
  done
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
