#!/bin/bash
# Shrinks a failing differential case by deleting lines (a simple delta loop).
#
#   tests/spec/shrink.sh BINDIR CASEDIR [OUTDIR]
#
# CASEDIR is a case as kept by run.sh (prog.teil or prog.tm, in/, names,
# verdict).  OUTDIR (default CASEDIR.shrunk) receives a copy that is shrunk
# by deleting one line of the program at a time, keeping a deletion if
#   * `run.sh BINDIR --case OUTDIR` still fails, and
#   * teil-check still gives the same exit status and the same error
#     categories (so the failure does not drift into a different error).
# Deleting a declaration also deletes its in/NAME.npy and its line in names.
# Repeats until no single line can be deleted.  Works best on programs with
# one declaration or statement per line (teilgen without lexical noise).

if [ $# -lt 2 ] || [ $# -gt 3 ]; then
    echo "usage: $0 BINDIR CASEDIR [OUTDIR]" >&2
    exit 2
fi
bindir=$1
src=${2%/}
out=${3:-$src.shrunk}
here=$(cd "$(dirname "$0")" && pwd)
run="$here/run.sh"
rm -rf "$out"
cp -r "$src" "$out" || exit 2
prog=
for f in "$out"/prog.teil "$out"/prog.tm; do [ -f "$f" ] && prog=$f; done
[ -n "$prog" ] || { echo "$0: no prog.teil or prog.tm in $src" >&2; exit 2; }

signature() {
    "$bindir/teil-check" --json "$1" 2>/dev/null | grep '"severity": "error"' |
        grep -o '"category": "[a-z-]*"' | sort | tr '\n' ' '
    "$bindir/teil-check" -q "$1" >/dev/null 2>&1
    echo "rc=$?"
}
fails() { ! KEEP=/dev/null "$run" "$bindir" --case "$1" >/dev/null 2>&1; }

if ! fails "$out"; then
    echo "$0: $src does not fail" >&2
    exit 1
fi
want=$(signature "$prog")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teil-shrink.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

changed=1
while [ $changed = 1 ]; do
    changed=0
    n=$(wc -l <"$prog")
    for ((i = n; i >= 1; i--)); do
        line=$(sed -n "${i}p" "$prog")
        case $line in '#'* | '//'* | '') continue ;; esac
        rm -rf "$tmp/c"
        cp -r "$out" "$tmp/c"
        p="$tmp/c/$(basename "$prog")"
        sed -i "${i}d" "$p"
        name=$(printf '%s\n' "$line" | sed -nE 's/^[[:space:]]*(alloc|var)[[:space:]]+((input|output)[[:space:]]+)*([A-Za-z_][A-Za-z0-9_]*).*/\4/p')
        if [ -n "$name" ]; then
            rm -f "$tmp/c/in/$name.npy"
            [ -f "$tmp/c/names" ] && grep -vx -- "$name" "$out/names" >"$tmp/c/names"
        fi
        [ "$(signature "$p")" = "$want" ] || continue
        if fails "$tmp/c"; then
            rm -rf "$out"
            cp -r "$tmp/c" "$out"
            changed=1
            echo "deleted: $line"
        fi
    done
done
echo "shrunk case in $out:"
cat "$prog"
KEEP=/dev/null "$run" "$bindir" --case "$out" | head -n 1
