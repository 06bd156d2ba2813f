#!/bin/sh
# tests/compile/lifted_diff.sh BIN PROG TRIALS [FLAG...]
#
# teil-check --diff on PROG's lifted form (teilc --emit-teil) with FLAGs, after checking
# that the lifted form compiles to the same C as PROG (but for the source file's name and
# line numbers).
# For programs the interpreter evaluates slowly in their nested form: it evaluates a
# nested contraction again at each point that reads it (helm: about n^9 terms an element
# against 6 n^4 lifted). Lifting itself is checked on the nested forms of smaller
# programs (spec/compiler.md R-CG-16, spec/lifting.md R-LIFT-12).
set -eu
bin=$1 prog=$2 trials=$3
shift 3
d=$(mktemp -d "${TMPDIR:-/tmp}/lifted-diff.XXXXXX")
trap 'rm -rf "$d"' EXIT
b=$(basename "$prog")
strip='2d; s|/\* line [0-9]*: |/* |'   # the source file and its line numbers
"$bin/teilc" "$prog" "$@" --emit-teil -o "$d/$b"
"$bin/teilc" "$prog" "$@" -o - | sed "$strip" >"$d/nested.c"
"$bin/teilc" "$d/$b" "$@" -o - | sed "$strip" >"$d/lifted.c"
cmp "$d/nested.c" "$d/lifted.c" || { echo "lifted_diff.sh: $b's lifted form compiles to other C" >&2; exit 1; }
"$bin/teil-check" --diff "$d/$b" "$@" --trials "$trials"
