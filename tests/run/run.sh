#!/bin/bash
# Interpreter golden tests.
#
#   tests/run/run.sh TEILRUN NPYCMP [extra teil-run args...]
#
# For every case directory CASE (one holding prog.teil or prog.tm) runs
#
#   TEILRUN CASE/prog.* --in NAME=CASE/in/NAME.npy ... \
#                       --out NAME=OUTDIR/NAME.npy ... EXTRA...
#
# with one --in per file in CASE/in/ and one --out per file in CASE/expect/,
# then `NPYCMP CASE/expect/NAME.npy OUTDIR/NAME.npy` for every expected output
# (exit 0 = equal, NaN matching NaN).  Prints one line per failure and finally
# exactly "N passed, M failed"; exits 1 if any case failed.

if [ $# -lt 2 ]; then
    echo "usage: $0 TEILRUN NPYCMP [extra teil-run args...]" >&2
    exit 2
fi
teilrun=$1
npycmp=$2
shift 2
for t in "$teilrun" "$npycmp"; do
    if [ ! -x "$t" ]; then
        echo "$0: $t is not an executable file" >&2
        exit 2
    fi
done
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teil-run-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if command -v timeout >/dev/null 2>&1; then
    with_timeout() { timeout 120 "$@"; }
else
    with_timeout() { "$@"; }
fi

pass=0
fail=0
for cdir in "$here"/*/; do
    cdir=${cdir%/}
    name=$(basename "$cdir")
    prog=
    for ext in teil tm; do
        if [ -f "$cdir/prog.$ext" ]; then prog="$cdir/prog.$ext"; fi
    done
    [ -n "$prog" ] || continue
    out="$tmp/$name"
    mkdir -p "$out"
    args=()
    for f in "$cdir"/in/*.npy; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .npy)
        args+=(--in "$n=$f")
    done
    outs=()
    for f in "$cdir"/expect/*.npy; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .npy)
        outs+=("$n")
        args+=(--out "$n=$out/$n.npy")
    done
    with_timeout "$teilrun" "$prog" "${args[@]}" "$@" >"$out/log" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "FAIL $name: teil-run exited with status $rc: $(head -n 3 "$out/log" | awk 'BEGIN{ORS=""} {if (NR > 1) print " | "; print}')"
        fail=$((fail + 1))
        continue
    fi
    bad=
    for n in "${outs[@]}"; do
        if [ ! -f "$out/$n.npy" ]; then
            bad="$bad $n(missing)"
            continue
        fi
        if ! "$npycmp" "$cdir/expect/$n.npy" "$out/$n.npy" >"$out/cmp.$n" 2>&1; then
            bad="$bad $n"
        fi
    done
    if [ -n "$bad" ]; then
        echo "FAIL $name: output differs:$bad"
        fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
