#!/bin/sh
# acsl/run.sh [FILE.c ...] - the Frama-C/WP proofs of `make acsl`.
#
# Runs acsl/wp-check on every acsl/*.c (for now acsl/store_check.c, which
# proves src/storeprim.h) and on any further FILE.c given as arguments (e.g.
# generated kernels), prints "FILE: proved P/T" per file and then
#
#     acsl total: proved P/T
#
# and exits non-zero if any goal of any file is unproved or a file could not
# be checked. A failing file's unproved goals are shown; its whole Frama-C
# output is in build/acsl/NAME.log. Options for wp-check (WP_TIMEOUT, WP_PAR,
# WP_VERBOSE) pass through the environment.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2

files=
for f in acsl/*.c "$@"; do
  [ -e "$f" ] || { [ "$f" = 'acsl/*.c' ] && continue; }
  case " $files " in *" $f "*) continue ;; esac
  files="$files $f"
done
[ -n "$files" ] || { echo "acsl/run.sh: no files to check" >&2; exit 2; }

mkdir -p build/acsl
proved=0 total=0 bad=0
for f in $files; do
  err=build/acsl/$(basename "$f" .c).err
  out=$(sh acsl/wp-check "$f" 2>"$err")
  st=$?
  line=$(printf '%s\n' "$out" | tail -1)
  p=$(echo "$line" | sed -n 's|^proved \([0-9]*\)/\([0-9]*\)$|\1|p')
  t=$(echo "$line" | sed -n 's|^proved \([0-9]*\)/\([0-9]*\)$|\2|p')
  [ -n "$p" ] || { p=0; t=0; }
  echo "$f: proved $p/$t"
  proved=$((proved + p)); total=$((total + t))
  if [ "$st" -ne 0 ] || [ "$p" -ne "$t" ] || [ "$t" -eq 0 ]; then
    bad=$((bad + 1))
    sed 's/^/    /' "$err"
  fi
  rm -f "$err"
done
echo "acsl total: proved $proved/$total"
[ "$bad" -eq 0 ] && [ "$proved" -eq "$total" ] && [ "$total" -gt 0 ]
