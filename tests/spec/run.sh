#!/bin/bash
# Differential tests: the C checker and interpreter (teil-check, teil-run)
# against teil-spec, the checker and evaluator extracted from the Coq proofs.
#
#   tests/spec/run.sh BINDIR [N]
#
# BINDIR holds teil-check, teil-run, teil-spec, npycmp and teilgen.
#   (a) every program in tests/check/, examples/ (and its subdirectories) and
#       tests/compile/progs/:
#       teil-check and teil-spec --check give the same verdict (exit 0 or 1),
#       and for ill-formed programs teil-spec's error category is one of
#       teil-check's (teil-spec reports only its first error);
#   (b) every case in tests/run/*/: teil-spec's outputs equal the expected
#       files (npycmp, default tolerance), and teil-run's equal teil-spec's;
#   (c) N (default 300) random programs from teilgen, seeds SEED+1..SEED+N
#       (SEED defaults to 0): 70% well-typed TeIL, 15% well-typed model
#       language (a third of it with only the parentheses that left
#       associativity needs, teilgen --model-chains), 15% ill-typed (two
#       thirds TeIL).  The verdicts of teil-check and teil-spec --check must
#       agree with each other and with teilgen's; for an ill-typed program
#       teil-check must report exactly one error, of teilgen's category, and
#       teil-spec the same category.  For a well-typed program every declared
#       tensor is compared after the run: teil-run and teil-spec exactly
#       (npycmp --rtol 0 --atol 0; both write • as NaN), then bit for bit
#       except that NaN matches NaN (teilgen --cmp-bits, which tells -0.0
#       from +0.0), and, from --print, element by element whether it is •,
#       NaN or a number (so • and NaN are kept apart).  Every PAD_EVERY-th
#       (default 4th) program, if well-typed, is also run with --pad PAD_M
#       (default 3) by both, the results compared with each other as above
#       and teil-spec's with its unpadded run (Theorem 3; npycmp treats -0.0
#       and +0.0 as equal, R-PAD-7);
#   (d) every case in tests/regress/*/ (prog.teil or prog.tm, in/, optional
#       verdict file "0 ..." / "1 CATEGORY ...", optional expect/NAME.npy):
#       as in (c), always also with --pad; expect/ files must equal both
#       interpreters' outputs bit for bit (NaN matches NaN).
#
#   tests/spec/run.sh BINDIR --case DIR...   runs only the (d) checks on DIR.
#
# A program whose teil-spec run exceeds SPEC_TIMEOUT seconds (default 30) is
# counted as skipped, not passed.  Prints one line per failure, a line
# "K skipped" and finally exactly "N passed, M failed"; exits 1 if any test
# failed.  Failing random programs are kept in KEEP (default
# build/spec-failures/) with a file "why".
#
# Environment: SEED, SPEC_TIMEOUT, KEEP, PAD_EVERY (default 4; 0 = never),
# PAD_M (the vector length for the padded runs, default 3), GENARGS (extra
# teilgen options, e.g. "--max-extent 6 --max-count 20000 --stmts 8").

if [ $# -lt 1 ] || { [ $# -gt 2 ] && [ "$2" != --case ]; }; then
    echo "usage: $0 BINDIR [N]" >&2
    echo "       $0 BINDIR --case DIR...   (only (d) on each DIR; used by shrink.sh)" >&2
    exit 2
fi
bindir=$(cd "$1" 2>/dev/null && pwd) || { echo "$0: no directory $1" >&2; exit 2; }
cases=()
if [ "$2" = --case ]; then
    cases=("${@:3}")
    N=0
else
    N=${2:-300}
fi
case $N in '' | *[!0-9]*) echo "$0: N must be a number" >&2; exit 2 ;; esac
for t in teil-check teil-run teil-spec npycmp teilgen; do
    if [ ! -x "$bindir/$t" ]; then
        echo "$0: $bindir/$t is not an executable file" >&2
        exit 2
    fi
done
CHECK=$bindir/teil-check RUN=$bindir/teil-run SPEC=$bindir/teil-spec
NPYCMP=$bindir/npycmp GEN=$bindir/teilgen
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
SEED=${SEED:-0}
SPEC_TIMEOUT=${SPEC_TIMEOUT:-30}
PAD_EVERY=${PAD_EVERY:-4}
PAD_M=${PAD_M:-3}
read -r -a genargs <<<"${GENARGS:-}"
KEEP=${KEEP:-$root/build/spec-failures}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teil-spec-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if command -v timeout >/dev/null 2>&1; then
    tmo() { local s=$1; shift; timeout "$s" "$@"; }
else
    tmo() { shift; "$@"; }
fi

pass=0
fail=0
skip=0
why=        # reason of the current test's failure ("" = ok)
skipped=    # set when the current test is skipped

bad() { why="${why:+$why; }$*"; }

# Category (spec/analyses.md R-AN-5) of teil-spec's one-line error message.
spec_category() {
    case $1 in
        *"use of undeclared tensor"*) echo undeclared ;;
        *"assignment to undeclared tensor"*) echo assign-undeclared ;;
        *"type mismatch in assignment"*) echo assign-mismatch ;;
        *"type mismatch in"*) echo type-mismatch ;;
        *"redeclaration of"*) echo redeclared ;;
        *"equal positions"*) echo equal-positions ;;
        *"position "*" out of range"*) echo position-out-of-range ;;
        *"index "*" out of range"*) echo index-out-of-range ;;
        *"extent must be at least 1"*) echo extent-zero ;;
        *"type too large"*) echo too-large ;;
        *"integer literal too large"*) echo literal-too-large ;;
        *"syntax error"* | *"unexpected character"* | *"nested too deeply"*) echo syntax ;;
        *) echo "unknown($1)" ;;
    esac
}

# verdicts PROG [EXPECT_RC EXPECT_CATEGORY]: compares teil-check and
# teil-spec --check (and teilgen's expectation if given).  Sets vrc to the
# common verdict (or 2).
verdicts() {
    local prog=$1 want=$2 wantcat=$3 crc src cats scat n
    "$CHECK" --json "$prog" >"$tmp/check.json" 2>"$tmp/check.err"
    crc=$?
    tmo "$SPEC_TIMEOUT" "$SPEC" --check "$prog" >/dev/null 2>"$tmp/spec.err"
    src=$?
    vrc=2
    if [ $crc -gt 1 ] || [ $src -gt 1 ]; then
        bad "teil-check exit $crc, teil-spec --check exit $src: $(head -c 300 "$tmp/check.err" "$tmp/spec.err" | tr '\n' ' ')"
        return
    fi
    if [ $crc -ne $src ]; then
        bad "verdict differs: teil-check $crc, teil-spec --check $src $(head -n 1 "$tmp/spec.err")"
        return
    fi
    vrc=$crc
    if [ -n "$want" ] && [ "$want" != "$crc" ]; then
        bad "both say $crc, teilgen expected $want ($wantcat)"
    fi
    [ $crc -eq 1 ] || return
    cats=$(grep -o '"category": "[a-z-]*"' "$tmp/check.json" | sed 's/.*: "\(.*\)"/\1/')
    scat=$(spec_category "$(head -n 1 "$tmp/spec.err")")
    if ! printf '%s\n' "$cats" | grep -qx -- "$scat"; then
        bad "teil-spec reports $scat, teil-check only $(echo $cats)"
    fi
    if [ -n "$wantcat" ]; then
        n=$(printf '%s\n' "$cats" | grep -c .)
        if [ "$n" -ne 1 ] || [ "$cats" != "$wantcat" ]; then
            bad "teil-check reports $n error(s) ($(echo $cats)), teilgen expected exactly one $wantcat"
        fi
        [ "$scat" = "$wantcat" ] || bad "teil-spec reports $scat, teilgen expected $wantcat"
    fi
}

# classes FILE-RUN FILE-SPEC SINGLE: compares, per tensor printed by both,
# the sequence of element classes (U = •, N = NaN, D = number) of
# teil-run --print and teil-spec --print.  Prints a message on a difference.
classes() {
    awk -v single="$3" '
        function cls(x) { return x == "_" ? "U" : (x ~ /nan/ ? "N" : "D") }
        FNR == 1 { f++ }
        f == 1 {
            if (NF == 2 && $2 == "=") { cur = $1; seen[cur] = 1; next }
            gsub(/[][]/, " ")
            for (i = 1; i <= NF; i++) r[cur] = r[cur] cls($i)
            next
        }
        f == 2 {
            if ($1 == "==") { cur = $2; next }
            if (cur == "") cur = single
            if (NF) s[cur] = s[cur] cls($1)
        }
        END {
            for (n in seen) {
                if (!(n in s)) continue
                if (r[n] == s[n]) continue
                for (i = 1; substr(r[n], i, 1) == substr(s[n], i, 1); i++) ;
                name["U"] = "undefined"; name["N"] = "NaN"; name["D"] = "a number"; name[""] = "missing"
                printf "%s element %d (row-major, from 0): teil-run %s, teil-spec %s\n", n, i - 1,
                    name[substr(r[n], i, 1)], name[substr(s[n], i, 1)]
                exit
            }
        }' "$1" "$2"
}

# evaluate DIR PROG INDIR OUTDIR-SUFFIX [--pad M] -- NAMES...: runs teil-run
# and teil-spec on PROG with the inputs in INDIR, writing every NAME into
# DIR/run$SUFFIX and DIR/spec$SUFFIX, and compares them.
evaluate() {
    local dir=$1 prog=$2 indir=$3 sfx=$4 extra=() ins=() ro=() so=() rc f n msg
    shift 4
    while [ "$1" != "--" ]; do extra+=("$1"); shift; done
    shift
    for f in "$indir"/*.npy; do
        [ -e "$f" ] || continue
        ins+=(--in "$(basename "$f" .npy)=$f")
    done
    mkdir -p "$dir/run$sfx" "$dir/spec$sfx"
    for n in "$@"; do
        ro+=(--out "$n=$dir/run$sfx/$n.npy")
        so+=(--out "$n=$dir/spec$sfx/$n.npy")
    done
    tmo 120 "$RUN" "$prog" "${ins[@]}" "${ro[@]}" "${extra[@]}" --print >"$dir/run$sfx.print" 2>"$dir/run$sfx.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        bad "teil-run ${extra[*]} exited $rc: $(grep -v 'elements are undefined\|^teil-run: padding with' "$dir/run$sfx.err" | head -n 2 | tr '\n' ' ')"
        return 1
    fi
    tmo "$SPEC_TIMEOUT" "$SPEC" "$prog" "${ins[@]}" "${so[@]}" "${extra[@]}" --print >"$dir/spec$sfx.print" 2>"$dir/spec$sfx.err"
    rc=$?
    if [ $rc -eq 124 ]; then
        skipped="teil-spec ${extra[*]} took more than ${SPEC_TIMEOUT}s"
        return 1
    fi
    if [ $rc -ne 0 ]; then
        bad "teil-spec ${extra[*]} exited $rc: $(head -n 2 "$dir/spec$sfx.err" | tr '\n' ' ')"
        return 1
    fi
    local pairs=()
    for n in "$@"; do
        if ! msg=$("$NPYCMP" --rtol 0 --atol 0 "$dir/spec$sfx/$n.npy" "$dir/run$sfx/$n.npy" 2>&1); then
            bad "${extra[*]:+${extra[*]}: }$n: teil-spec vs teil-run: $msg"
        else
            pairs+=("$dir/spec$sfx/$n.npy" "$dir/run$sfx/$n.npy")
        fi
    done
    # npycmp equates -0.0 and +0.0; the two implementations must agree on the sign too
    if [ ${#pairs[@]} -gt 0 ] && ! msg=$("$GEN" --cmp-bits "${pairs[@]}" 2>&1); then
        bad "${extra[*]:+${extra[*]}: }teil-run vs teil-spec, bit for bit: $(printf '%s' "$msg" | head -n 1 | sed "s|$dir/||g")"
    fi
    msg=$(classes "$dir/run$sfx.print" "$dir/spec$sfx.print" "$1")
    [ -z "$msg" ] || bad "${extra[*]:+${extra[*]}: }$msg"
    return 0
}

# finish NAME [KEEPDIR]: counts the current test; on failure prints the line
# and keeps KEEPDIR (a generated program) in $KEEP/NAME.
finish() {
    if [ -n "$why" ]; then
        fail=$((fail + 1))
        if [ -n "$2" ]; then
            mkdir -p "$KEEP"
            rm -rf "${KEEP:?}/$1"
            cp -r "$2" "$KEEP/$1"
            printf '%s\n' "$why" >"$KEEP/$1/why"
            echo "FAIL $1: $why (kept in $KEEP/$1)"
        else
            echo "FAIL $1: $why"
        fi
    elif [ -n "$skipped" ]; then
        skip=$((skip + 1))
        echo "SKIP $1: $skipped"
    else
        pass=$((pass + 1))
    fi
    why=
    skipped=
}

# differential DIR NAME: (c)/(d) for the program in DIR (prog.teil or
# prog.tm, in/, optional verdict and names files); pad=1 also runs --pad 3.
differential() {
    local d=$1 name=$2 prog= want= wantcat= names=() n
    for f in "$d"/prog.teil "$d"/prog.tm; do [ -f "$f" ] && prog=$f; done
    if [ -z "$prog" ]; then
        bad "no prog.teil or prog.tm in $d"
        return
    fi
    if [ -f "$d/verdict" ]; then
        read -r want wantcat _ <"$d/verdict"
    fi
    verdicts "$prog" "$want" "$wantcat"
    [ "$vrc" = 0 ] || return
    if [ -f "$d/names" ]; then
        mapfile -t names <"$d/names"
    else  # every declared tensor, from the declarations
        mapfile -t names < <(sed 's/[#/].*//' "$prog" | grep -E '^[[:space:]]*(alloc|var)[[:space:]]' |
            sed -E 's/^[[:space:]]*(alloc|var)[[:space:]]+((input|output)[[:space:]]+)*([A-Za-z_][A-Za-z0-9_]*).*/\4/')
    fi
    [ ${#names[@]} -gt 0 ] || return
    local w="$tmp/w"
    rm -rf "$w"
    mkdir -p "$w"
    evaluate "$w" "$prog" "$d/in" "" -- "${names[@]}" || return
    # regression cases may fix the expected values, bit for bit (NaN = •)
    for f in "$d"/expect/*.npy; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .npy)
        for impl in spec run; do
            if ! msg=$("$GEN" --cmp-bits "$f" "$w/$impl/$n.npy" 2>&1); then
                bad "$n: teil-$impl vs expect/$n.npy: $(printf '%s' "$msg" | head -n 1 | sed "s|^$w/$impl/$n.npy: ||")"
            fi
        done
    done
    if [ "$pad" = 1 ]; then
        evaluate "$w" "$prog" "$d/in" "-pad" --pad "$PAD_M" -- "${names[@]}" || return
        for n in "${names[@]}"; do
            if ! msg=$("$NPYCMP" --rtol 0 --atol 0 "$w/spec/$n.npy" "$w/spec-pad/$n.npy" 2>&1); then
                bad "$n: teil-spec --pad $PAD_M vs teil-spec: $msg"
            fi
        done
    fi
}

start=$(date +%s)
shopt -s nullglob

if [ ${#cases[@]} -gt 0 ]; then
    for d in "${cases[@]}"; do
        pad=1
        differential "${d%/}" "$d"
        finish "$d"
    done
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
fi

# ---- (a) verdicts on the checker's golden files and the examples
for f in "$root"/tests/check/*.teil "$root"/tests/check/*.tm "$root"/examples/*.teil "$root"/examples/*.tm \
    "$root"/examples/*/*.teil "$root"/examples/*/*.tm "$root"/tests/compile/progs/*.teil "$root"/tests/compile/progs/*.tm; do
    verdicts "$f"
    finish "check:${f#"$root"/}"
done

# ---- (b) the interpreter's golden cases
for cdir in "$root"/tests/run/*/; do
    cdir=${cdir%/}
    prog=
    for f in "$cdir"/prog.teil "$cdir"/prog.tm; do [ -f "$f" ] && prog=$f; done
    [ -n "$prog" ] || continue
    names=()
    for f in "$cdir"/expect/*.npy; do names+=("$(basename "$f" .npy)"); done
    w="$tmp/w"
    rm -rf "$w"
    mkdir -p "$w"
    if evaluate "$w" "$prog" "$cdir/in" "" -- "${names[@]}"; then
        for n in "${names[@]}"; do
            if ! msg=$("$NPYCMP" "$cdir/expect/$n.npy" "$w/spec/$n.npy" 2>&1); then
                bad "$n: expected vs teil-spec: $msg"
            fi
        done
    fi
    finish "run:$(basename "$cdir")"
done

# ---- (c) random programs
for ((i = 1; i <= N; i++)); do
    seed=$((SEED + i))
    k=$((i % 20))
    if [ $k -lt 14 ]; then
        gargs=(--lang teil) kind=teil
    elif [ $k -lt 16 ]; then
        gargs=(--lang model) kind=model
    elif [ $k -lt 17 ]; then
        gargs=(--lang model --model-chains) kind=model
    elif [ $k -lt 19 ]; then
        gargs=(--lang teil --ill-typed) kind=ill-teil
    else
        gargs=(--lang model --ill-typed) kind=ill-model
    fi
    g="$tmp/gen"
    rm -rf "$g"
    if ! "$GEN" --seed "$seed" --out "$g" "${gargs[@]}" "${genargs[@]}" >/dev/null 2>"$tmp/gen.err"; then
        bad "teilgen failed: $(head -n 1 "$tmp/gen.err")"
        finish "gen:$kind:$seed"
        continue
    fi
    pad=0
    if [ "$PAD_EVERY" -gt 0 ] && [ $((i % PAD_EVERY)) -eq 1 ]; then pad=1; fi
    differential "$g" "gen:$kind:$seed"
    finish "gen-$kind-$seed" "$g"
done

# ---- (d) regression cases
for d in "$root"/tests/regress/*/; do
    d=${d%/}
    pad=1
    differential "$d" "regress:$(basename "$d")"
    finish "regress:$(basename "$d")"
done

echo "$skip skipped ($(($(date +%s) - start)) s)"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
