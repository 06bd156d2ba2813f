#!/bin/sh
# Command-line behaviour of teil-check and teil-run: exit codes, one-line
# errors for bad input of every kind (usage, files, .npy, shapes, sizes),
# --help, --json, --print, --trace and --pad. Usage: run.sh BINDIR
set -u
BIN=${1:-build/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0

# check NAME WANT_STATUS WANT_SUBSTRING [ONE_LINE] -- command...
check() {
  name=$1 want=$2 sub=$3 oneline=$4
  shift 5
  "$@" >"$T/out" 2>"$T/err"
  st=$?
  ok=1
  [ "$st" -eq "$want" ] || { ok=0; why="exit $st, expected $want"; }
  if [ $ok = 1 ] && [ -n "$sub" ] && ! grep -qF -- "$sub" "$T/out" "$T/err"; then ok=0; why="no '$sub' in the output"; fi
  if [ $ok = 1 ] && [ "$oneline" = 1 ] && [ "$(wc -l <"$T/err")" -ne 1 ]; then ok=0; why="stderr has $(wc -l <"$T/err") lines, not 1"; fi
  if grep -q "runtime error\|AddressSanitizer\|LeakSanitizer" "$T/err"; then ok=0; why="sanitizer report"; fi
  if [ $ok = 1 ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL $name: $why"; sed 's/^/    /' "$T/err" | head -5; fi
}

# A .npy file from parts: mknpy FILE DESCR FORTRAN SHAPE DATA(printf escapes)
mknpy() {
  hdr="{'descr': '$2', 'fortran_order': $3, 'shape': $4, }"
  n=${#hdr}
  total=$(( (10 + n + 1 + 63) / 64 * 64 ))
  pad=$(( total - 10 - n - 1 ))
  hl=$(( total - 10 ))
  { printf '\223NUMPY\001\000'; printf "\\$(printf %03o $((hl % 256)))\\$(printf %03o $((hl / 256)))"
    printf '%s' "$hdr"; printf "%${pad}s" ''; printf '\n'; printf "$5"; } > "$1"
}
ONE='\000\000\000\000\000\000\360\077'      # 1.0 as <f8
TWO='\000\000\000\000\000\000\000\100'      # 2.0
THREE='\000\000\000\000\000\000\010\100'    # 3.0
FOUR='\000\000\000\000\000\000\020\100'     # 4.0

cat > "$T/mm.teil" <<'P'
alloc input A : [2, 2]
alloc input B : [2, 2]
alloc output C : [2, 2]
C = contr 2 3 (prod A B)
P
printf 'alloc A : [2]\nC = add A A\n' > "$T/bad.teil"
printf 'var input x : [2]\nvar output y : [2]\nvar z : [2]\ny = x / z\n' > "$T/div.tm"
mknpy "$T/a.npy" '<f8' False '(2, 2)' "$ONE$TWO$THREE$FOUR"
mknpy "$T/af.npy" '<f8' True '(2, 2)' "$ONE$THREE$TWO$FOUR"     # the same matrix, Fortran order
mknpy "$T/v2.npy" '<f8' False '(2,)' "$ONE$TWO"
mknpy "$T/i8.npy" '<i8' False '(2, 2)' "$ONE$TWO$THREE$FOUR"
mknpy "$T/be.npy" '>f8' False '(2, 2)' "$ONE$TWO$THREE$FOUR"
mknpy "$T/short.npy" '<f8' False '(2, 2)' "$ONE$TWO"
printf 'not a numpy file at all' > "$T/junk.npy"

# ---- teil-check
check "check --help"            0 "example:" 0 -- "$BIN/teil-check" --help
check "check ok"                0 ""         0 -- "$BIN/teil-check" "$T/mm.teil"
check "check error exit 1"      1 "undeclared tensor 'C'" 0 -- "$BIN/teil-check" "$T/bad.teil"
check "check missing file"      2 "cannot open" 1 -- "$BIN/teil-check" "$T/nope.teil"
check "check directory"         2 "directory" 1 -- "$BIN/teil-check" "$T"
check "check no files"          2 "no input files" 1 -- "$BIN/teil-check"
check "check unknown option"    2 "unknown option" 1 -- "$BIN/teil-check" --frobnicate "$T/mm.teil"
check "check bad --lang"        2 "--lang" 1 -- "$BIN/teil-check" --lang c "$T/mm.teil"
check "check --lang model"      1 "expected" 0 -- "$BIN/teil-check" --lang model "$T/mm.teil"
check "check --json"            1 '"severity": "error"' 0 -- "$BIN/teil-check" --json "$T/bad.teil"
check "check --print-types -v"  0 "prod A B : [2, 2, 2, 2]" 0 -- "$BIN/teil-check" --print-types -v "$T/mm.teil"
check "check warning ok"        0 "may still be undefined" 0 -- "$BIN/teil-check" "$T/div.tm"
check "check -Werror"           1 "may still be undefined" 0 -- "$BIN/teil-check" -Werror "$T/div.tm"
check "check good and bad"      1 "" 0 -- "$BIN/teil-check" "$T/mm.teil" "$T/bad.teil"
check "check binary garbage"    1 "error" 0 -- "$BIN/teil-check" "$T/junk.npy"
if command -v python3 >/dev/null 2>&1; then
  "$BIN/teil-check" --json "$T/bad.teil" "$T/mm.teil" 2>/dev/null | while read -r line; do printf '%s' "$line"; done >/dev/null
  check "check --json parses"   0 "" 0 -- sh -c "\"$BIN/teil-check\" --json \"$T/bad.teil\" | python3 -c 'import json,sys; json.load(sys.stdin)'"
fi

# ---- teil-run
check "run --help"              0 "--pad M" 0 -- "$BIN/teil-run" --help
check "run ok"                  0 "" 0 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/a.npy" --in B="$T/a.npy" --out C="$T/c.npy"
check "run --print"             0 "[[7 10]" 0 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/a.npy" --in B="$T/a.npy" --print
check "run fortran order"       0 "[[7 10]" 0 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/af.npy" --in B="$T/a.npy" --print
check "run output readable"     0 "[[37 54]" 0 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/c.npy" --in B="$T/a.npy" --print
check "run --trace"             0 "step 1 (line 4): C = contr 2 3 (prod A B)" 0 -- "$BIN/teil-run" "$T/mm.teil" --seed 3 --trace
check "run --pad"               0 "Theorem 3" 0 -- "$BIN/teil-run" "$T/mm.teil" --seed 3 --pad 4
check "run ill-typed"           1 "undeclared tensor 'C'" 0 -- "$BIN/teil-run" "$T/bad.teil"
check "run missing input"       2 "input tensor 'A' has no value" 1 -- "$BIN/teil-run" "$T/mm.teil" --in B="$T/a.npy"
check "run wrong shape"         2 "has shape (2,) but 'A' has type [2, 2]" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/v2.npy" --in B="$T/a.npy"
check "run int dtype"           2 "<i8" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/i8.npy" --in B="$T/a.npy"
check "run big-endian"          2 "big-endian" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/be.npy" --in B="$T/a.npy"
check "run truncated npy"       2 "tensor 'A'" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/short.npy" --in B="$T/a.npy"
check "run not npy"             2 "tensor 'A'" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/junk.npy" --in B="$T/a.npy"
check "run missing npy"         2 "tensor 'A'" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A="$T/none.npy" --in B="$T/a.npy"
check "run unknown tensor"      2 "no tensor 'Q'" 1 -- "$BIN/teil-run" "$T/mm.teil" --seed 1 --out Q="$T/q.npy"
check "run bad binding"         2 "NAME=FILE.npy" 1 -- "$BIN/teil-run" "$T/mm.teil" --in A
check "run bad --pad"           2 "--pad takes an integer" 1 -- "$BIN/teil-run" "$T/mm.teil" --seed 1 --pad 0
check "run bad --seed"          2 "--seed takes an integer" 1 -- "$BIN/teil-run" "$T/mm.teil" --seed x
check "run unwritable out"      2 "tensor 'C'" 1 -- "$BIN/teil-run" "$T/mm.teil" --seed 1 --out C="$T/no/such/dir/c.npy"
check "run no program"          2 "no program" 1 -- "$BIN/teil-run"
check "run two programs"        2 "one program" 1 -- "$BIN/teil-run" "$T/mm.teil" "$T/mm.teil"
check "run max-bytes"           2 "more than the limit" 1 -- "$BIN/teil-run" "$T/mm.teil" --seed 1 --max-bytes 10
printf 'alloc A : [100000, 100000, 100000]\nA = A\n' > "$T/huge.teil"
check "run huge store"          2 "more than the limit" 1 -- "$BIN/teil-run" "$T/huge.teil"
printf 'alloc A : [4611686018427387904]\nA = A\n' > "$T/huge2.teil"
check "run huge literal"        1 "too large" 0 -- "$BIN/teil-run" "$T/huge2.teil"
check "run undefined count"     0 "2 of its elements are undefined" 0 -- "$BIN/teil-run" "$T/div.tm" --seed 1 --out y="$T/y.npy"
check "run undefined print"     0 "[_ _]" 0 -- "$BIN/teil-run" "$T/div.tm" --seed 1 --print

# robustness: deep nesting, NUL bytes, qualifier order (R-GR-2, R-GR-3, R-LEX-1)
awk 'BEGIN { printf "var A : [3]\nA = A"; for (i = 0; i < 100000; i++) printf " + A"; printf "\n" }' > "$T/chain.tm"
check "check long chain"        1 "nested too deeply" 0 -- "$BIN/teil-check" "$T/chain.tm"
awk 'BEGIN { printf "alloc A : [3]\nA = "; for (i = 0; i < 100000; i++) printf "("; printf "A"; for (i = 0; i < 100000; i++) printf ")"; printf "\n" }' > "$T/parens.teil"
check "check deep parens"       1 "nested too deeply" 0 -- "$BIN/teil-check" "$T/parens.teil"
printf 'alloc A : [3]\n# a\000b\nA = A\n' > "$T/nulcomment.teil"
check "check NUL in comment"    0 "" 0 -- "$BIN/teil-check" "$T/nulcomment.teil"
printf 'alloc A : [3]\nA = A\000\n' > "$T/nul.teil"
check "check NUL in code"       1 "unexpected character" 0 -- "$BIN/teil-check" "$T/nul.teil"
printf 'alloc output input B : [3]\nB = B\n' > "$T/qual.teil"
check "check qualifier order"   1 "keyword" 0 -- "$BIN/teil-check" "$T/qual.teil"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
