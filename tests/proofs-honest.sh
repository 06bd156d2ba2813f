#!/bin/sh
# proofs/ must contain no unproved step: no Admitted, admit, Axiom, Conjecture or
# top-level Parameter (issue on the Coq development, "Honesty"), and
# build/proofs/assumptions.txt (written by make proofs) must list only axioms of
# Coq's standard library: functional extensionality and the real numbers.
cd "$(dirname "$0")/.." || exit 2
pass=0 fail=0
# Section-local Variable/Hypothesis are discharged when their section closes;
# one left at top level would show up as an axiom in Print Assumptions below.
bad=$(grep -rnE '\b(Admitted|admit|Axiom|Axioms|Conjecture)\b|^Parameter[[:space:]]' proofs --include='*.v' |
      grep -vE '^\S+:[0-9]+:[[:space:]]*\(\*' || true)
if [ -z "$bad" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "unproved markers:"; echo "$bad"; fi
a=build/proofs/assumptions.txt
if [ -s "$a" ]; then
  # Axiom names are the unindented lines of the "Axioms:" blocks; all must be
  # standard-library axioms (functional extensionality, the classical reals).
  other=$(awk '/^Axioms:/{f=1;next} /^===/{f=0} f && /^[A-Za-z]/{print $1}' "$a" | sort -u |
          grep -vE '^(FunctionalExtensionality\.functional_extensionality(_dep)?|ClassicalDedekindReals\.[A-Za-z_]+|Coq\.Reals\.[A-Za-z_.]+|R[A-Za-z_0-9]*|up|archimed|completeness|total_order_T)$' | head -5)
  if [ -z "$other" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "assumptions outside the standard library:"; echo "$other"; fi
  # Every name in THEOREMS.md's "Coq name" column must be defined in proofs/.
  missing=$(awk -F'|' '/^\|/ && NF > 4 {print $3}' proofs/THEOREMS.md | grep -oE '`[A-Za-z_][A-Za-z0-9_]*`' | tr -d '`' |
            sort -u | while read -r t; do
              grep -qE "^[[:space:]]*(Theorem|Lemma|Corollary|Fact|Remark|Proposition|Definition|Fixpoint|Inductive|Record)[[:space:]]+$t\b" proofs/*.v || echo "$t"
            done | head -5)
  if [ -z "$missing" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "named in THEOREMS.md but not defined:"; echo "$missing"; fi
  n=$(grep -c 'Closed under the global context' "$a")
  echo "assumptions.txt: $n theorems use no axiom at all"
else
  fail=$((fail + 1)); echo "missing $a (run make proofs)"
fi
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
