#!/bin/bash
# Golden tests for the type checker.
#
#   tests/check/run.sh PATH/TO/teil-check
#
# For every NAME.expect in this directory, runs `teil-check NAME.teil` (or
# NAME.tm) and compares exit status and diagnostics with the expectations (see
# README.md for the format).  Prints one line per failure and finally exactly
# "N passed, M failed"; exits 1 if any test failed.
#
# Only bash, grep and awk (and coreutils' timeout, when present) are used.

if [ $# -lt 1 ]; then
    echo "usage: $0 PATH/TO/teil-check" >&2
    exit 2
fi
tool=$1
if [ ! -x "$tool" ]; then
    echo "$0: $tool is not an executable file" >&2
    exit 2
fi
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teil-check-tests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if command -v timeout >/dev/null 2>&1; then
    run_tool() { timeout 20 "$tool" "$@"; }
else
    run_tool() { "$tool" "$@"; }
fi

pass=0
fail=0
for exp in "$here"/*.expect; do
    [ -e "$exp" ] || continue
    base=${exp%.expect}
    name=$(basename "$base")
    prog=
    for ext in teil tm; do
        if [ -f "$base.$ext" ]; then prog="$base.$ext"; fi
    done
    if [ -z "$prog" ]; then
        echo "FAIL $name: no $name.teil or $name.tm"
        fail=$((fail + 1))
        continue
    fi
    run_tool "$prog" >"$tmp/out" 2>&1
    rc=$?
    msgs=$(awk -v rc="$rc" -v prog="$(basename "$prog")" '
        # ---- first file: the expectations ----
        FNR == NR {
            sub(/\r$/, "")
            if ($0 ~ /^[ \t]*$/ || $0 ~ /^[ \t]*;/) next
            if ($1 == "exit") { want_rc = $2; have_rc = 1; next }
            if ($1 == "error" || $1 == "warning") {
                loc = $2
                if (loc !~ /^[0-9]+(:[0-9]+)?$/) { bad = bad "bad expect line: " $0 "\n"; next }
                sub_ = $0
                sub(/^[ \t]*(error|warning)[ \t]+[0-9]+(:[0-9]+)?[ \t]?/, "", sub_)
                if ($1 == "error") { ne++; eloc[ne] = loc; esub[ne] = sub_ }
                else { nw++; wloc[nw] = loc }
                next
            }
            bad = bad "bad expect line: " $0 "\n"
            next
        }
        # ---- second file: the tool output ----
        {
            sub(/\r$/, "")
            line = $0
            if (match(line, /:[0-9]+:[0-9]+: (error|warning|note)/)) {
                pre = substr(line, 1, RSTART - 1)
                rest = substr(line, RSTART + 1)
                # rest = "L:C: kind: ..."
                split(rest, parts, ":")
                L = parts[1]; C = parts[2]
                kind = parts[3]; sub(/^ /, "", kind)
                okfile = (length(pre) >= length(prog) && substr(pre, length(pre) - length(prog) + 1) == prog)
                if (okfile && (kind == "error" || kind == "warning")) {
                    nd++; dkind[nd] = kind; dL[nd] = L; dC[nd] = C; dtext[nd] = line
                    if (kind == "error") nae++
                    next
                }
            }
            # a note or any other line belongs to the preceding diagnostic
            if (nd > 0) dtext[nd] = dtext[nd] "\n" line
        }
        function locmatch(want, L, C,    p) {
            if (index(want, ":") == 0) return (want == L)
            split(want, p, ":")
            return (p[1] == L && p[2] == C)
        }
        END {
            if (bad != "") printf "%s", bad
            if (!have_rc) print "expect file has no exit line"
            else if (rc != want_rc) print "exit status " rc ", expected " want_rc
            if (nae + 0 != ne + 0) print "got " nae + 0 " error(s), expected " ne + 0
            for (i = 1; i <= ne; i++) {
                found = 0
                for (j = 1; j <= nd; j++) {
                    if (used[j] || dkind[j] != "error") continue
                    if (!locmatch(eloc[i], dL[j], dC[j])) continue
                    if (esub[i] != "" && index(dtext[j], esub[i]) == 0) continue
                    used[j] = 1; found = 1; break
                }
                if (!found) {
                    if (esub[i] != "") print "missing error at " eloc[i] " containing \"" esub[i] "\""
                    else print "missing error at " eloc[i]
                }
            }
            for (i = 1; i <= nw; i++) {
                found = 0
                for (j = 1; j <= nd; j++)
                    if (dkind[j] == "warning" && locmatch(wloc[i], dL[j], dC[j])) { found = 1; break }
                if (!found) print "missing warning at " wloc[i]
            }
        }
    ' "$exp" "$tmp/out")
    if [ -z "$msgs" ]; then
        pass=$((pass + 1))
    else
        fail=$((fail + 1))
        # one line per failing test
        echo "FAIL $name: $(printf '%s' "$msgs" | awk 'BEGIN{ORS=""} {if (NR > 1) print "; "; print}')"
    fi
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
